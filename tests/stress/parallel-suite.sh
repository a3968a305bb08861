#!/bin/bash
# parallel-suite.sh [BUILD]: on the GPU machine, from the project root with
# .gpu carried, builds (a fresh BUILD, /tmp/parallel-suite unless given)
# and runs the GPU suite (CUDAREDUCE_REQUIRE_GPU=1, CUDAREDUCE_REQUIRE_NVRTC=1)
# in five groups at once: one after another the suite takes longer than a
# device call's 10 minutes, while its tests mostly wait on NVRTC, one core
# each. The groups balance the durations measured on the H200 (gpu-builtins
# and gpu-channels about 150 s alone); a test not named below joins the
# fourth group. LIMIT (420) bounds each group in seconds. Prints each test's
# result and packs the logs into $OUT/suite-logs.tgz (a device call brings
# back only a few files).
set -u
build=${1:-/tmp/parallel-suite}
out=${OUT:-/tmp/parallel-suite-out}
logs=$out/suite-logs
mkdir -p "$logs"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
stress_build "$build" "$logs/build.log" || exit 1
export CUDAREDUCE_REQUIRE_GPU=1 CUDAREDUCE_REQUIRE_NVRTC=1
groups=("gpu-builtins gpu-stuck gpu-stuck-launch gpu-percentiles"
  "gpu-channels gpu-multi gpu-level gpu-histogram"
  "gpu-video gpu-element gpu-memory gpu-async gpu-python-examples gpu-binned"
  "gpu-intervals gpu-batch gpu-cuda gpu-fused"
  "gpu-region-bins gpu-regions-element")
# Meson lists "project:suite / name", older ones "project:name".
for t in $(meson test -C "$build" --list --suite gpu --no-rebuild 2>/dev/null | sed -e 's|^.* / ||' -e 's|^.*:||'); do
  [[ " ${groups[*]} " == *" $t "* ]] || groups[3]+=" $t"
done
status=0 i=0 pids=()
for g in "${groups[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # a group is a list of test names
  timeout "${LIMIT:-420}" meson test -C "$build" --no-rebuild --print-errorlogs \
    --logbase "group$i" $g >"$logs/group$i.log" 2>&1 &
  pids+=($!)
done
for k in "${!pids[@]}"; do
  wait "${pids[$k]}" || status=1
  echo "group $((k + 1)) (${groups[$k]}):"
  grep -E '^ *[0-9]+/[0-9]+ ' "$logs/group$((k + 1)).log" | sort -u
done
cp "$build"/meson-logs/group*.txt "$logs/" 2>/dev/null
tar czf "$out/suite-logs.tgz" -C "$out" suite-logs && rm -rf "$logs"
echo "GPU suite in five groups: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
