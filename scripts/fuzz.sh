#!/usr/bin/env bash
# fuzz.sh - run every libFuzzer harness of tests/fuzz over its corpus, then
# SECONDS of fresh fuzzing each, and print executions and coverage.
# Usage: scripts/fuzz.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with
#   CC=clang -Dlibfuzzer=true, e.g. by scripts/test.sh)
# New inputs go to a scratch folder, never into tests/.  A crash, leak,
# timeout or broken contract fails the script and keeps its reproducer;
# copy it into tests/fuzz/corpus/NAME/ so the replay tests keep it.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
scratch=$(mktemp -d /tmp/ccsim-fuzz.XXXXXX)
status=0
printf '%-12s %12s %8s %8s  %s\n' harness executions cov ft result
for exe in "$dir"/tests/fuzz/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    name=${exe##*/fuzz_}
    mkdir -p "$scratch/$name"
    log="$scratch/$name.log"
    # token dictionaries (tests/fuzz/dict/): duplicate keys, trailing data, NaN
    dict=()
    case $name in
        scenario|trace_json|sweep) cat tests/fuzz/dict/json.dict >"$scratch/$name.dict" ;;
        topo_file) cat tests/fuzz/dict/json.dict tests/fuzz/dict/graphml.dict >"$scratch/$name.dict" ;;
    esac
    [ -f "$scratch/$name.dict" ] && dict=(-dict="$scratch/$name.dict")
    ASAN_OPTIONS=detect_leaks=1 "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$scratch/$name-" "${dict[@]}" \
        "$scratch/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
    rc=$?
    runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
    last=$(grep -E '^#[0-9]+.*(DONE|cov:)' "$log" | tail -1)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
    if [ "$rc" -eq 0 ]; then result=ok; else result="FAILED (log $log)"; status=1; fi
    printf '%-12s %12s %8s %8s  %s\n' "$name" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
if [ "$status" -eq 0 ]; then rm -rf "$scratch"; fi
exit $status
