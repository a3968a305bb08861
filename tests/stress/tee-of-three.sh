#!/bin/bash
# tee-of-three.sh SECONDS PROCS: on the GPU machine, from the project root
# with .gpu carried, runs the pipeline of the crash in issue 31 (a tee of
# three cudareduce elements after audiotestsrc, 1 MiB buffers) over and
# over in PROCS processes for SECONDS, each run with a crash reporter
# preloaded (segv-report.c) and the memory category's debug log. Keeps the
# output and log of every failing run in $OUT as fail-*; a worker stops at
# its third failure. NBUF buffers a run (100); SAMPLES frames a buffer
# (131072: 1 MiB of stereo F32); BUILD the build directory. HEAP=1 has
# glibc serve the buffers from its heap (MALLOC_MMAP_THRESHOLD_), so that
# neighbouring buffers share pages from the first run, as they do in a
# process that has freed buffers of that size before (bench-pipeline).
# SANITIZE=address builds the plugin with AddressSanitizer (in its own
# build directory, /tmp/b-asan unless BUILD says) and preloads libasan into
# gst-launch-1.0, which is not instrumented, in place of the reporter.
set -u
secs=$1 procs=$2
out=${OUT:-/tmp/tee-of-three}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
setup_args=() preload=/tmp/segv-report.so
if [ "${SANITIZE:-}" = address ]; then
  build=${BUILD:-/tmp/b-asan}
  setup_args=(-Db_sanitize=address -Db_lundef=false -Dcub=disabled)
  preload=$(gcc -print-file-name=libasan.so)
  # No leak check: gst-launch-1.0 and GLib keep what they allocate once.
  # protect_shadow_gap=0: the CUDA driver maps memory in ASan's shadow gap.
  # The plugin scanner is not instrumented: the registry is built in-process.
  export ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:exitcode=66
  export GST_REGISTRY_FORK=no GST_REGISTRY_1_0=/tmp/tee-of-three-asan.bin
else
  build=${BUILD:-/tmp/b}
  stress_reporter || exit 1
fi
stress_build "$build" "$out/build.log" "${setup_args[@]}" || exit 1
case $build in
  /*) export GST_PLUGIN_PATH_1_0=$build/plugin ;;
  *) export GST_PLUGIN_PATH_1_0=$PWD/$build/plugin ;;
esac
export GST_CUDAREDUCE_CACHE_DIR=/tmp/tee-of-three-cache
[ "${HEAP:-0}" = 1 ] && export MALLOC_MMAP_THRESHOLD_=33554432
P="audiotestsrc wave=sine samplesperbuffer=${SAMPLES:-131072} num-buffers=${NBUF:-100} ! audio/x-raw,format=F32LE,channels=2,rate=48000 ! tee name=t t. ! queue ! cudareduce monoid=sumsq ! fakesink sync=false t. ! queue ! cudareduce monoid=minmax ! fakesink sync=false t. ! queue ! cudareduce monoid=count_gt ! fakesink sync=false"
# One run first, which also fills the kernel cache: a setup that fails
# every run is reported once.
LD_PRELOAD=$preload gst-launch-1.0 -q $P >"$out/first.log" 2>&1
rc=$?
echo "first run rc=$rc"
[ $rc -eq 0 ] || { tail -5 "$out/first.log"; exit 1; }
worker() {
  local w=$1 n=0 bad=0 end=$(($(date +%s) + secs))
  while [ "$(date +%s)" -lt $end ] && [ $bad -lt 3 ]; do
    n=$((n + 1))
    local log=/tmp/tee-of-three-${SANITIZE:-plain}-$w-$n
    GST_DEBUG=cudareducememory:5 GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE=$log.gst \
      LD_PRELOAD=$preload timeout 60 gst-launch-1.0 -q $P >$log.out 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
      bad=$((bad + 1))
      cp $log.out "$out/fail-$w-$n-rc$rc.out"
      cp $log.gst "$out/fail-$w-$n.gst"
    fi
    rm -f $log.out $log.gst
  done
  echo "worker $w: $n runs, $bad failed"
}
for w in $(seq "$procs"); do worker "$w" & done
wait
