#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing client against a freshly started `rollcall serve` with the conformance
# setting (config/conformance.conf) on a free loopback port, and fails on any FAILED or UNIMPLEMENTED case.
# The runner is scripts/autobahn/run.sh; it installs the fuzzing client into the user's cache on first use
# (scripts/autobahn/install.sh: a minute or two, Debian's archive and PyPI), later runs are offline.
#
# usage: scripts/autobahn.sh [CASE_GLOB ...] [--exclude GLOB ...]
#   default: cases 1-11 (--exclude '12.*' --exclude '13.*'); pass '*' for all, '12.*' '13.*' for compression
#   (about ten minutes).
# env:
#   ROLLCALL_BIN      server binary (default .build/release/rollcall, built when missing)
#   ROLLCALL_TLS=1    run against wss:// with a throwaway self-signed certificate
#   AUTOBAHN_OUT      report directory (default test-artifacts/autobahn)
#   AUTOBAHN_TIMEOUT  seconds allowed for the fuzzing client (default 1800)
#   XDG_CACHE_HOME    where the fuzzing client is installed (default ~/.cache; under rollcall/)
# exit: 0 every case passed (OK, NON-STRICT or INFORMATIONAL), 1 some case FAILED or UNIMPLEMENTED, 2 could not run
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${ROLLCALL_BIN:-.build/release/rollcall}
if [ ! -x "$bin" ]; then swift build -c release --product rollcall >&2; fi

# The fuzzing client first, so that a first-time install does not keep a server waiting.
scripts/autobahn/install.sh >/dev/null

args=("$@")
if [ ${#args[@]} -eq 0 ]; then args=(--exclude '12.*' --exclude '13.*'); fi

work=$(mktemp -d)
log="$work/server.log"
server_args=(serve --config config/conformance.conf --listen 127.0.0.1:0)
scheme=ws
if [ "${ROLLCALL_TLS:-0}" = 1 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
    server_args=(serve --config config/conformance.conf --set server.listen= --set tls.listen=127.0.0.1:0
                 --set tls.certificate="$work/cert.pem" --set tls.private_key="$work/key.pem")
    scheme=wss
fi
"$bin" "${server_args[@]}" 2>"$log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

address=""
for _ in $(seq 1 100); do
    address=$(grep -o "$scheme://[^ ]*" "$log" | head -n 1 || true)
    [ -n "$address" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 2; }
    sleep 0.1
done
[ -n "$address" ] || { echo "autobahn: server did not start" >&2; cat "$log" >&2; exit 2; }

status=0
scripts/autobahn/run.sh "$address/echo" "${args[@]}" || status=$?
if ! kill -0 "$pid" 2>/dev/null; then
    echo "autobahn: the server exited during the run; its log:" >&2
    tail -n 20 "$log" >&2
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
