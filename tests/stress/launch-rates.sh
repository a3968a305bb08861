#!/bin/bash
# launch-rates.sh LABEL BYTES ELEMENT...: buffers a second through
#
#   gst-launch-1.0 audiotestsrc wave=silence ! F32LE stereo, BYTES a
#   buffer ! ELEMENT... ! fakesink sync=false
#
# as marginal rates, the way issue 34 measured them: runs of N and 3N
# buffers (N=20000 unless set), the fastest of three of each, so that the
# process's start and CUDA's set-up cancel out; also the process's CPU
# time (user and system, all threads) a buffer between the two. The
# environment passes through to gst-launch-1.0 (GST_PLUGIN_PATH must lead
# to the plugin for cudareduce). For example:
#
#   bash tests/stress/launch-rates.sh identity 4096 identity
#   bash tests/stress/launch-rates.sh sumsq 4096 cudareduce monoid=sumsq post-messages=false
set -u
label=$1 bytes=$2
shift 2
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
n=${N:-20000}
frames=$((bytes / 8))
err=$(mktemp)
trap 'rm -f "$err"' EXIT

# BUFFERS ELEMENT...: "WALL_NS USER_S SYSTEM_S" of one run.
one_run() {
  local buffers=$1 t0 t1 cpu TIMEFORMAT='%U %S'
  shift
  t0=$(date +%s%N)
  cpu=$({ time gst-launch-1.0 -q audiotestsrc wave=silence \
    num-buffers="$buffers" samplesperbuffer="$frames" ! \
    audio/x-raw,format=F32LE,channels=2 ! "$@" ! fakesink sync=false \
    >/dev/null 2>"$err"; } 2>&1) || {
    echo "the pipeline failed: $(tail -3 "$err")" >&2
    exit 1
  }
  t1=$(date +%s%N)
  echo "$((t1 - t0)) $cpu"
}

# BUFFERS ELEMENT...: the fastest of three runs.
fastest() {
  local buffers=$1
  shift
  for _ in 1 2 3; do one_run "$buffers" "$@"; done | sort -n | head -1
}

read -r w1 u1 s1 < <(fastest "$n" "$@")
read -r w3 u3 s3 < <(fastest $((3 * n)) "$@")
awk -v l="$label" -v b="$bytes" -v n="$n" -v w1="$w1" -v w3="$w3" \
  -v c1="$u1 $s1" -v c3="$u3 $s3" 'BEGIN {
  split(c1, a); split(c3, c); c1 = a[1] + a[2]; c3 = c[1] + c[2]
  r = 2 * n / ((w3 - w1) * 1e-9)
  printf "%-30s %6d bytes %10.0f buffers/s %6.2f us a buffer, CPU %5.2f us a buffer\n",
    l, b, r, 1e6 / r, (c3 - c1) * 1e6 / (2 * n) }'
