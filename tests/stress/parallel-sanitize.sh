#!/bin/bash
# parallel-sanitize.sh BUILD "TOOL..." TEST...: on the GPU machine, from
# the project root with .gpu carried, builds BUILD and runs each named GPU
# test under each compute-sanitizer tool (memcheck, racecheck, synccheck:
# meson's test setups of those names), all at once. One after another they
# take longer than a device call's 10 minutes, and they mostly wait on
# NVRTC, one core each. LIMIT (500) bounds each run in seconds. Prints each
# run's result and the sanitizer's summary line, and packs the logs into
# $OUT/sanitize-logs.tgz.
set -u
build=$1 tools=$2
shift 2
out=${OUT:-/tmp/parallel-sanitize-out}
logs=$out/sanitize-logs
mkdir -p "$logs"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
stress_build "$build" "$logs/build.log" || exit 1
export CUDAREDUCE_REQUIRE_GPU=1 CUDAREDUCE_REQUIRE_NVRTC=1
status=0 runs=() pids=()
for tool in $tools; do
  for t in "$@"; do
    timeout "${LIMIT:-500}" meson test -C "$build" --no-rebuild --setup "$tool" \
      --print-errorlogs --logbase "$tool-$t" "$t" >"$logs/$tool-$t.log" 2>&1 &
    pids+=($!) runs+=("$tool $t")
  done
done
for k in "${!pids[@]}"; do
  wait "${pids[$k]}" || status=1
  read -r tool t <<<"${runs[$k]}"
  echo "$tool $t: $(grep -E '^ *[0-9]+/[0-9]+ ' "$logs/$tool-$t.log" | tr -s ' ')"
done
cp "$build"/meson-logs/*.txt "$logs/" 2>/dev/null
grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$logs"/*.txt | sort | uniq -c
tar czf "$out/sanitize-logs.tgz" -C "$out" sanitize-logs && rm -rf "$logs"
echo "sanitizers: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
