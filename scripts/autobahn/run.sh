#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing client (`wstest -m fuzzingclient`) against a WebSocket server that is already
# listening on loopback, and summarizes the report. The client is installed on first use (install.sh beside this
# script). scripts/autobahn.sh starts a server and calls this; call it directly for a server of your own.
#
# usage: scripts/autobahn/run.sh URL [CASE_GLOB ...] [--exclude GLOB ...]
#   URL         ws:// or wss:// address of the endpoint to test, on loopback only (127.0.0.0/8, localhost, [::1])
#   CASE_GLOB   case ids or globs, default '*' (all 517 cases, 1.* to 13.*); '*' matches anything, '.' is literal,
#               matched from the start: '1.*' is group 1, while '1*' also takes groups 10-13
#   --exclude   a glob to leave out (repeatable), e.g. --exclude '12.*' --exclude '13.*'
# env:
#   AUTOBAHN_OUT      report directory (default test-artifacts/autobahn in the project): index.json, index.html,
#                     one report per case, wstest.log; emptied of the previous run's reports first
#   AUTOBAHN_TIMEOUT  seconds allowed for the wstest run (default 1800)
#   and those of install.sh (XDG_CACHE_HOME, AUTOBAHN_INSTALL_DIR, AUTOBAHN_DEBIAN_MIRROR)
# stdout: one line per case that is not a plain pass, then exactly
#   autobahn: N cases, OK=a NON-STRICT=b INFORMATIONAL=c UNIMPLEMENTED=d FAILED=e
# exit: 0 no case FAILED or UNIMPLEMENTED and the report has every selected case (NON-STRICT and INFORMATIONAL
#       pass), 1 some case FAILED or UNIMPLEMENTED, 2 could not run (bad arguments, no client, nothing listening,
#       no case selected, timeout, incomplete report)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() {
    sed -n '6,20p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit "${1:-2}"
}
fail() {
    echo "autobahn: $*" >&2
    exit 2
}

url=""
cases=()
excluded=()
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage 0 ;;
    --exclude)
        [ $# -ge 2 ] || usage
        excluded+=("$2")
        shift 2
        ;;
    --exclude=*)
        excluded+=("${1#--exclude=}")
        shift
        ;;
    -*) fail "unknown option $1 (see --help)" ;;
    *)
        if [ -z "$url" ]; then url=$1; else cases+=("$1"); fi
        shift
        ;;
    esac
done
[ -n "$url" ] || usage
[ ${#cases[@]} -gt 0 ] || cases=('*')
timeout_seconds=${AUTOBAHN_TIMEOUT:-1800}
[[ $timeout_seconds =~ ^[0-9]+$ ]] || fail "AUTOBAHN_TIMEOUT must be whole seconds"

# Loopback targets only: the fuzzing client sends thousands of malformed frames.
pattern='^(wss?)://(\[[0-9A-Fa-f:.]+\]|[^]/:[]+)(:([0-9]+))?(/.*)?$'
[[ $url =~ $pattern ]] || fail "not a ws:// or wss:// URL: $url"
scheme=${BASH_REMATCH[1]}
host=${BASH_REMATCH[2]}
port=${BASH_REMATCH[4]}
host=${host#[}
host=${host%]}
if [ -z "$port" ]; then
    if [ "$scheme" = wss ]; then port=443; else port=80; fi
fi
case $host in
127.*.*.* | localhost | ::1) ;;
*) fail "refusing $host: the fuzzing client runs against loopback only (127.0.0.1, localhost, [::1])" ;;
esac

command -v python3 >/dev/null || fail "python3 is missing (it summarizes the report)"
client=$("$here/install.sh") || exit 2

# shellcheck disable=SC2016 # the inner shell expands $0 and $1
timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null ||
    fail "nothing accepts connections at $host:$port"

out=${AUTOBAHN_OUT:-$root/test-artifacts/autobahn}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/index.json" "$out/index.html" "$out/wstest.log" "$out/cases.txt" "$out/spec.json" \
    "$out"/rollcall_case_*.json "$out"/rollcall_case_*.html

# The spec, and the cases it selects (wstest waits forever when it selects none).
"$client/bin/python2" "$here/spec.py" "$out/spec.json" "$url" "$out" "${cases[@]}" -- "${excluded[@]}" \
    >"$out/cases.txt" || fail "could not write the spec"
count=$(grep -c . "$out/cases.txt" || true)
[ "$count" -gt 0 ] || fail "no case matches ${cases[*]}${excluded[*]:+ (excluding ${excluded[*]})}"

echo "autobahn: $count cases against $url (at most ${timeout_seconds}s; reports in $out)" >&2
# wstest writes scratch files into its working directory.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
started=$SECONDS
status=0
(cd "$scratch" && exec timeout -k 15 "$timeout_seconds" "$client/bin/wstest" -m fuzzingclient -s "$out/spec.json") \
    >"$out/wstest.log" 2>&1 || status=$?
echo "autobahn: wstest finished in $((SECONDS - started))s" >&2
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    tail -n 3 "$out/wstest.log" >&2
    fail "wstest did not finish within ${timeout_seconds}s (AUTOBAHN_TIMEOUT)"
fi
if [ "$status" -ne 0 ]; then
    tail -n 20 "$out/wstest.log" >&2
    fail "wstest exited with $status (log: $out/wstest.log)"
fi

exec python3 "$here/summary.py" "$out/index.json" "$out/cases.txt"
