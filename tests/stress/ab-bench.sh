#!/bin/bash
# ab-bench.sh COMMIT: on the GPU machine, from the project root with .gpu
# carried (and a .git, or COMMIT's tree unpacked in $OLD_TREE), builds
# COMMIT and this tree and runs bench-reduce (one result, up to 256 MiB)
# and bench-pipeline (--stream-only) on each in turn, twice, so that
# before and after come from one machine within minutes. CSVs and logs go
# to $OUT; compare them with tests/bench/report.py. ROUNDS (2) sets the
# rounds. The benchmarks run with segv-report.c preloaded: a crash leaves
# its backtrace in the benchmark's log.
set -u
commit=$1
out=${OUT:-/tmp/ab-bench}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
stress_reporter || exit 1
old=${OLD_TREE:-/tmp/ab-old}
if [ ! -f "$old/meson.build" ]; then
  mkdir -p "$old" && git archive "$commit" | tar -x -C "$old" || exit 1
fi
for v in old new; do
  src=$PWD
  [ $v = old ] && src=$old
  stress_build /tmp/ab-build-$v "$out/build-$v.log" "$src" || exit 1
done
for round in $(seq "${ROUNDS:-2}"); do
  for v in old new; do
    b=/tmp/ab-build-$v
    export GST_PLUGIN_PATH_1_0=$b/plugin GST_CUDAREDUCE_CACHE_DIR=/tmp/ab-cache-$v
    LD_PRELOAD=/tmp/segv-report.so $b/tests/bench/bench-reduce --only single --max-bytes 268435456 \
      --csv "$out/reduce-$v-$round.csv" >"$out/reduce-$v-$round.log" 2>&1
    echo "bench-reduce $v round $round: rc=$?"
    LD_PRELOAD=/tmp/segv-report.so $b/tests/bench/bench-pipeline --stream-only --seconds 0.5 \
      --csv "$out/pipeline-$v-$round.csv" >"$out/pipeline-$v-$round.log" 2>&1
    echo "bench-pipeline $v round $round: rc=$?"
  done
done
