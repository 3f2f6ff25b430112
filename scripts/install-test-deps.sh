#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: the C libraries the package links
# (OpenSSL, zlib, SQLite), Python 3 with venv and the CA certificates pip checks PyPI with (the interoperability
# tests, the Autobahn report summary), the openssl command (test certificates), Chromium (the dashboard and browser client
# tests), Node.js with Debian's TypeScript compiler and esbuild (the browser client's build check, its bundle and its
# tests) and npm (packing the client; only when no npm is on PATH, since a Node.js from elsewhere brings its own),
# redis-server (the cluster-mode Redis client tests), Prometheus for its promtool (the alert rules' checks and unit
# tests) and a C compiler (the Autobahn fuzzing client builds a C extension on its first install,
# scripts/autobahn/install.sh).
# Quiet and quick when everything is there; installing needs root (it says what to run otherwise).
#
# usage: scripts/install-test-deps.sh
set -euo pipefail

packages=(libssl-dev zlib1g-dev libsqlite3-dev ca-certificates python3 python3-venv openssl chromium nodejs
    node-typescript esbuild redis-server prometheus gcc libc6-dev)
missing=()
for package in "${packages[@]}"; do
    # Installed means "ii"; a package removed but not purged still has a status entry.
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || true)
    [ "${status:0:2}" = ii ] || missing+=("$package")
done
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
