#!/usr/bin/env bash
# Builds one libFuzzer target from Fuzz/TARGET/*.swift and runs it for a bounded time.
#
#   scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]   build, then fuzz TARGET for SECONDS
#   scripts/fuzz.sh --build TARGET                              build only
#   scripts/fuzz.sh --smoke [SECONDS]                           every target for a few seconds (default 5)
#   scripts/fuzz.sh --list                                      the targets
#
# The targets are not SwiftPM targets: `swift build` and `swift test` are unaffected. The module sources are
# compiled straight with swiftc (-sanitize=fuzzer,address), the C shims with clang (-fsanitize=fuzzer-no-link,
# address). Everything generated goes under .build/fuzz/: the binaries, the working corpus (grown from the seeds in
# Fuzz/corpus/TARGET/, which are never written to), crash and timeout files, and the run logs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/.build/fuzz"

TARGETS=(http-upgrade frame-decoder deflate-inflater json jwt protocol)

# The Swift modules each target needs, in dependency order (a module's dependencies come first).
modules_for() {
    case "$1" in
        http-upgrade) echo "HTTPCore WebSocketCore WebSocketDeflate" ;;
        frame-decoder) echo "HTTPCore WebSocketCore" ;;
        deflate-inflater) echo "HTTPCore WebSocketCore WebSocketDeflate" ;;
        json) echo "JSONCoding" ;;
        jwt) echo "JSONCoding TokenAuth" ;;
        protocol) echo "JSONCoding TokenAuth Rooms ClusterCore RoomsTesting" ;;
        *) echo "unknown target: $1 (one of: ${TARGETS[*]})" >&2; exit 2 ;;
    esac
}

# Longest input per target: a little above what each parser meaningfully reads.
max_len_for() {
    case "$1" in
        http-upgrade) echo 9000 ;;
        frame-decoder) echo 4096 ;;
        deflate-inflater) echo 4096 ;;
        json) echo 4096 ;;
        jwt) echo 2048 ;;
        protocol) echo 2048 ;;
    esac
}

# The Swift backtracer runs inside the crashing process and trips AddressSanitizer; libFuzzer reports enough.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

SANITIZERS=${FUZZ_SANITIZERS:-fuzzer,address}
SWIFT_FLAGS=(-swift-version 5 -parse-as-library -O -g -sanitize="$SANITIZERS")
LINKER=()
if command -v ld.lld >/dev/null 2>&1; then LINKER=(-use-ld=lld); fi
C_SANITIZERS=fuzzer-no-link
if [[ "$SANITIZERS" == *address* ]]; then C_SANITIZERS="$C_SANITIZERS,address"; fi

build_c_shims() {
    local dir="$OUT/lib"
    mkdir -p "$dir/CWebSocket"
    # SwiftPM generates this module map for the C target; write the same for a direct swiftc build.
    cat >"$dir/CWebSocket/module.modulemap" <<MAP
module CWebSocket {
    umbrella header "$ROOT/CWebSocket/include/CWebSocket.h"
    export *
}
MAP
    local c
    for c in CWebSocket/*.c; do
        local obj="$dir/CWebSocket_$(basename "$c" .c).o"
        if [[ ! -f "$obj" || "$c" -nt "$obj" || CWebSocket/include -nt "$obj" ]]; then
            clang -O1 -g -fsanitize="$C_SANITIZERS" -ICWebSocket/include -c "$c" -o "$obj"
        fi
    done
}

# Compiles one Swift module into .build/fuzz/lib/MODULE.{o,swiftmodule}, when its sources changed.
# A module is rebuilt when its sources changed or a module before it in the list was rebuilt.
build_module() {
    local module=$1 force=$2 dir="$OUT/lib"
    local sources=(Sources/"$module"/*.swift)
    local obj="$dir/$module.o"
    if [[ $force -eq 0 && -f "$obj" && -z "$(find Sources/"$module" -newer "$obj" | head -1)" ]]; then
        return 1
    fi
    echo "== compiling $module" >&2
    swiftc "${SWIFT_FLAGS[@]}" -module-name "$module" -wmo -c -emit-module \
        -emit-module-path "$dir/$module.swiftmodule" -I "$dir" -Xcc -I"$dir/CWebSocket" \
        "${sources[@]}" -o "$obj"
}

build_target() {
    local target=$1
    [[ -d "Fuzz/$target" ]] || { echo "no such target: $target (one of: ${TARGETS[*]})" >&2; exit 2; }
    mkdir -p "$OUT/lib" "$OUT/bin"
    build_c_shims
    local module objects=() force=0
    for module in $(modules_for "$target"); do
        if build_module "$module" "$force"; then force=1; fi
        objects+=("$OUT/lib/$module.o")
    done
    echo "== linking fuzz-$target" >&2
    swiftc "${SWIFT_FLAGS[@]}" "${LINKER[@]}" -module-name "Fuzz_${target//-/_}" -I "$OUT/lib" \
        -Xcc -I"$OUT/lib/CWebSocket" Fuzz/"$target"/*.swift "${objects[@]}" "$OUT"/lib/CWebSocket_*.o \
        -lssl -lcrypto -lz -o "$OUT/bin/fuzz-$target"
}

run_target() {
    local target=$1 seconds=$2
    shift 2
    local corpus="$OUT/corpus/$target" artifacts="$OUT/artifacts/$target/"
    mkdir -p "$corpus" "$artifacts" "$OUT/logs"
    local seeds=()
    [[ -d "Fuzz/corpus/$target" ]] && seeds=("Fuzz/corpus/$target")
    echo "== fuzzing $target for ${seconds}s (log: .build/fuzz/logs/$target.log)" >&2
    local status=0 log="$OUT/logs/$target.log"
    "$OUT/bin/fuzz-$target" "$corpus" "${seeds[@]}" \
        -max_total_time="$seconds" -max_len="$(max_len_for "$target")" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts" -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
    grep -E 'INITED|DONE|ERROR|SUMMARY|Test unit written|stat::' "$log" | grep -v 'Cannot export' >&2 || true
    if [[ $status -ne 0 ]]; then
        echo "== $target FAILED (exit $status); artifacts in .build/fuzz/artifacts/$target/" >&2
    fi
    return "$status"
}

case "${1:-}" in
    --list)
        printf '%s\n' "${TARGETS[@]}"
        ;;
    --build)
        build_target "${2:?target}"
        ;;
    --smoke)
        seconds=${2:-5}
        failed=()
        for target in "${TARGETS[@]}"; do
            build_target "$target"
            run_target "$target" "$seconds" || failed+=("$target")
        done
        if [[ ${#failed[@]} -gt 0 ]]; then echo "== failed: ${failed[*]}" >&2; exit 1; fi
        echo "== all targets ran ${seconds}s without a finding" >&2
        ;;
    ""|-h|--help)
        sed -n '2,12p' "$0"
        ;;
    *)
        target=$1
        seconds=${2:?seconds}
        shift 2
        build_target "$target"
        run_target "$target" "$seconds" "$@"
        ;;
esac
