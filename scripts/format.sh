#!/bin/sh
# Checks that the Swift sources follow the house format (.swift-format: 4 spaces, 120 columns, ordered imports),
# as the test command does; with --fix, rewrites them in place first.
#
#   scripts/format.sh          check (exit 1 and a line per finding when something is off)
#   scripts/format.sh --fix    format in place, then check
set -eu
cd "$(dirname "$0")/.."

paths="Sources Tests Fuzz clients/js/swift Package.swift"
if [ "${1:-}" = "--fix" ]; then
    # shellcheck disable=SC2086
    swift format format --in-place --recursive --parallel $paths
fi
# shellcheck disable=SC2086
swift format lint --strict --recursive --parallel $paths
