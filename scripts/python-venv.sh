#!/bin/sh
# Creates the Python environment the tests run in: `.venv` in the project root with the Rollcall Python client
# (clients/python, installed editable) and the packages of scripts/python-requirements.txt, each pinned with its
# dependencies: `websockets` (the client's one dependency), `pytest`, `prometheus_client` (parses /metrics),
# `setuptools` (builds the client), `mypy` and `ruff` (type check and lint), `schemathesis` and
# `openapi-spec-validator` (the server API's OpenAPI description). Safe to run again: it does nothing when all is
# in place.
#
# The pinned wheels are downloaded once into a wheelhouse, ${ROLLCALL_WHEELHOUSE:-${XDG_CACHE_HOME:-~/.cache}/rollcall/wheels},
# and everything is installed from there with pip's --no-index: later runs, and the test that installs the client
# into a fresh virtual environment, need no network.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
wheels="${ROLLCALL_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/rollcall/wheels}"
requirements=$(grep -v '^#' "$root/scripts/python-requirements.txt" | tr '\n' ' ')

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
pip() {
    "$venv/bin/python" -m pip --disable-pip-version-check "$@"
}

# Wheels are per interpreter (websockets has a C extension), so the mark of a complete download names both.
tag=$("$venv/bin/python" -c 'import sys; print(sys.implementation.cache_tag)')
mark="$wheels/.complete-$tag-$(echo "$requirements" | cksum | cut -d' ' -f1)"
if [ ! -f "$mark" ]; then
    mkdir -p "$wheels"
    pip download --quiet --dest "$wheels" $requirements
    touch "$mark"
fi

# Install only when a pinned version is missing, so a second run stays quiet.
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
    pip install --quiet --no-index --find-links "$wheels" $requirements
fi

# The client, editable: the tests use the sources as they are. Reinstalled when it points elsewhere (another checkout).
if ! "$venv/bin/python" - "$root/clients/python/src/rollcall" <<'PY' 2>/dev/null
import sys
from pathlib import Path
import rollcall
sys.exit(0 if Path(rollcall.__file__).resolve().parent == Path(sys.argv[1]).resolve() else 1)
PY
then
    pip install --quiet --no-index --find-links "$wheels" --no-deps --editable "$root/clients/python"
fi
