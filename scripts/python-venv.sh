#!/bin/sh
# Creates the Python environment the interoperability tests run in: `.venv` in the project root, with pinned
# versions of the `websockets` client, `pytest` and `prometheus_client` (parses /metrics). Safe to run again: it does nothing when all is in place.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
requirements="websockets==15.0.1 pytest==8.4.1 prometheus_client==0.26.0"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi

# Install only when a pinned version is missing, so a second run stays quiet and offline.
if ! "$venv/bin/python" - $requirements <<'PY' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
for requirement in sys.argv[1:]:
    name, wanted = requirement.split("==")
    try:
        if version(name) != wanted:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $requirements
fi
