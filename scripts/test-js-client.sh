#!/usr/bin/env bash
# The browser client's own checks, as the test command runs them:
#   1. the committed build (clients/js/dist, clients/dashboard/dist, the embedded file list) matches the
#      TypeScript sources (scripts/build-js-client.sh --check),
#   2. unit tests with Node's test runner (shared vectors, roster store, rooms, requests, reconnects),
#   3. live tests against `rollcall serve` on loopback (ROLLCALL_BIN, default .build/debug/rollcall).
# Node's own WebSocket is used too where this Node has one (--experimental-websocket on Node 20).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build-js-client.sh --check

flags=()
if node --experimental-websocket -e '' >/dev/null 2>&1; then
    flags+=(--experimental-websocket)
fi

cd clients/js
echo "-- unit tests (node --test)"
node "${flags[@]}" --test $(ls test/*.test.mjs | grep -v '/live\.')
echo "-- live tests against rollcall serve (node --test)"
node "${flags[@]}" --test test/live.test.mjs
