#!/bin/bash
# driver-time.sh [BUFFERS] [BYTES]: what the CUDA driver's calls cost the
# element a buffer, thread by thread, in gst-launch-1.0 as a user runs it:
#
#   audiotestsrc wave=silence ! F32LE stereo, BYTES a buffer (default
#   4096) ! cudareduce monoid=sumsq ... ! fakesink sync=false
#
# for BUFFERS buffers (default 200000), without messages, with a message
# a buffer, and per channel every 100 ms. The element opens
# tests/stress/driver-time.c (built into /tmp/driver-time.so) as its
# driver, which forwards to the real one (CR_DRIVER_TIME_REAL, default
# libcuda.so.1: the fake driver of the CPU suite checks the script without
# a GPU) and times every call. Prints, per configuration, each thread's
# calls a buffer and microseconds a buffer of each entry point, the
# pipeline's wall time, and the process's CPU time a buffer (user and
# system, all threads). GST_PLUGIN_PATH must lead to the plugin.
set -u
buffers=${1:-200000}
bytes=${2:-4096}
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gcc -O2 -shared -fPIC -o /tmp/driver-time.so "$stress_dir/driver-time.c" -ldl -lpthread || exit 1
frames=$((bytes / 8))
log=$(mktemp)

measure() { # LABEL PROPERTY...
  local label=$1
  shift
  local t0 t1
  local TIMEFORMAT='cpu %U %S'
  t0=$(date +%s%N)
  { time GST_CUDAREDUCE_DRIVER_LIBRARY=/tmp/driver-time.so \
    gst-launch-1.0 -q audiotestsrc wave=silence num-buffers="$buffers" \
    samplesperbuffer="$frames" ! audio/x-raw,format=F32LE,channels=2 ! \
    cudareduce monoid=sumsq "$@" ! fakesink sync=false >/dev/null 2>"$log"; } 2>>"$log" || {
    echo "$label: the pipeline failed:"
    tail -5 "$log"
    return 1
  }
  t1=$(date +%s%N)
  echo "== $label: $buffers buffers of $bytes bytes, $(((t1 - t0) / buffers)) ns a buffer of wall time (process start included)"
  awk -v n="$buffers" '
    $1 == "cpu" { printf "process CPU a buffer: user %.2f us, system %.2f us\n", $2 * 1e6 / n, $3 * 1e6 / n }
    $1 == "driver-time" && $4 >= n / 1000 {
      printf "  %-18s %-32s %8.3f calls %8.3f us a buffer\n", $2, $3, $4 / n, $5 / 1000 / n }' "$log" | sort -k1,1 -k5,5nr
}

measure "no messages" post-messages=false
measure "a message a buffer"
measure "per channel, every 100 ms" per-channel=true interval=100000000
rm -f "$log"
