#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   0. the format check (scripts/format.sh; .swift-format),
#   1. the Swift tests (unit, byte-level and live tests on 127.0.0.1),
#   2. the browser client (clients/js): its committed build matches the TypeScript sources, and its unit and live
#      tests run under Node's test runner (scripts/test-js-client.sh),
#   3. the Python client: `mypy --strict` and `ruff` over the package and its examples, and its unit tests
#      (clients/python/tests: the shared vectors, the roster store, resume bookkeeping, views, tokens, the server API
#      against a stand-in),
#   4. interoperability tests against the built gateway: the rooms protocol through the Python client (every roster
#      view), the Swift client from a throwaway package that depends on the RollcallClient product (built once per
#      run: the observable room model, the URLSession transport), the Python and Swift stores through a seeded
#      churn, the Python examples from a wheel installed into a fresh virtual environment, the JavaScript package
#      packed, installed offline into a throwaway project and bundled for Node, raw `websockets` for the transport,
#      the dashboard and the browser client's bundle in a headless Chromium, the server API fuzzed against its
#      OpenAPI description with schemathesis, and the alert rules (promtool) and the dashboard against /metrics,
#   5. the Autobahn|Testsuite conformance cases 1-11 against a freshly started server (scripts/autobahn.sh).
# Needs nothing beside the repository: missing Debian packages are installed first (scripts/install-test-deps.sh,
# as root), the Python client and the test tools into .venv from a wheelhouse (scripts/python-venv.sh), and the
# Autobahn fuzzing client into ${XDG_CACHE_HOME:-~/.cache}/rollcall on its first run (scripts/autobahn/install.sh).
# The first run needs Debian's archive and PyPI, later ones do not.
# The compression cases (12-13, about ten minutes) run with: scripts/autobahn.sh '12.*' '13.*'
#
# usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-test-deps.sh

echo "== format (swift format lint, .swift-format)"
scripts/format.sh

echo "== building"
swift build --build-tests -Xswiftc -warnings-as-errors
swift build -c release --product rollcall -Xswiftc -warnings-as-errors

echo "== swift tests"
swift test --skip-build

echo "== browser client (build check, node --test unit and live tests)"
ROLLCALL_BIN=.build/debug/rollcall scripts/test-js-client.sh

echo "== Python client: mypy --strict, ruff, unit tests (clients/python)"
scripts/python-venv.sh
(cd clients/python && ../../.venv/bin/mypy src examples && ../../.venv/bin/ruff check src examples)
.venv/bin/python -m pytest clients/python/tests -q

echo "== interoperability tests (Python and Swift clients, a throwaway Swift package, headless Chromium)"
ROLLCALL_BIN=.build/debug/rollcall .venv/bin/python -m pytest Tests/interop -q

echo "== Autobahn|Testsuite cases 1-11"
ROLLCALL_BIN=.build/release/rollcall scripts/autobahn.sh --exclude '12.*' --exclude '13.*'
