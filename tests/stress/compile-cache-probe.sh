#!/bin/bash
# compile-cache-probe.sh [BUILD]: on the GPU machine, from the project root
# with .gpu carried: which cache outside the element makes a program's
# second first compile fast (docs/performance.md, "a cache outside the
# element"). Each start runs a pipeline of one element with its kernel
# cache emptied and fast starts off, and prints the element's compile time
# (its INFO line) for a program no earlier start compiled (a random
# threshold of count_gt changes nothing in the source, so a fresh inline
# monoid is used: its load body carries a random number), then the same
# program again: as it is, with CUDA_CACHE_DISABLE=1, with a fresh
# CUDA_CACHE_PATH, with that path again, and with NVRTC's --no-cache
# option (NVRTC 13's library names it and its driver cache). BUILD
# (/tmp/probe unless given) is configured and built first.
set -u
build=${1:-/tmp/probe}
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
stress_build "$build" "${OUT:-/tmp}/probe-build.log" -Dcub=disabled || exit 1
export GST_PLUGIN_PATH_1_0=$build/plugin GST_CUDAREDUCE_FAST_START=0
mark=$RANDOM$RANDOM
nv=$(mktemp -d)
start() { # label, environment...
  local label=$1 kernels
  shift
  kernels=$(mktemp -d)
  printf '%-28s %s\n' "$label" "$(env "$@" GST_CUDAREDUCE_CACHE_DIR="$kernels" \
    GST_DEBUG=cudareduce:4 gst-launch-1.0 -q audiotestsrc num-buffers=1 ! \
    audio/x-raw,format=F32LE,channels=2 ! cudareduce per-channel=true \
    accumulator=s:float64 identity="Acc r; r.s = 0; return r;" \
    combine="Acc r; r.s = a.s + b.s; return r;" \
    load="Acc r; r.s = x * $mark.0; return r;" ! fakesink 2>&1 |
    grep -ao 'compiled for [^;]*' || echo 'no compile logged')"
  rm -rf "$kernels"
}
start "first" X=1
start "again" X=1
start "CUDA_CACHE_DISABLE=1" CUDA_CACHE_DISABLE=1
start "fresh CUDA_CACHE_PATH" CUDA_CACHE_PATH="$nv"
start "that CUDA_CACHE_PATH again" CUDA_CACHE_PATH="$nv"
start "NVRTC --no-cache" GST_CUDAREDUCE_NVRTC_OPTIONS=--no-cache
rm -rf "$nv"
