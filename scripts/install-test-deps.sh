#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: the C libraries the package links
# (OpenSSL, zlib), Python's venv, the openssl command (test certificates), Chromium (the dashboard test) and
# redis-server (the cluster-mode Redis client tests).
# Quiet and quick when everything is there.
set -euo pipefail

packages=(libssl-dev zlib1g-dev python3-venv openssl chromium redis-server)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
