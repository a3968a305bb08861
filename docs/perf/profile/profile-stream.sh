#!/bin/bash
# Where a small buffer's time goes, thread by thread: not part of the build
# or of CI. On the GPU machine, from the project root with .gpu carried:
#
#   bash docs/perf/profile/profile-stream.sh
#
# It builds the plugin into /tmp with stream-profile.patch applied (timers
# around each step of a buffer on the streaming thread, the results thread
# and the source pad's task, printed when the element stops; the patch is
# made against the code it sits beside). Then, for each case below, it runs
#
#   gst-launch-1.0 audiotestsrc wave=silence samplesperbuffer=N ! F32LE
#       stereo ! cudareduce monoid=sumsq [post-messages=false] ! fakesink
#
# on the profiled build and prints each thread's CPU use over one second of
# the run (from /proc; the results thread is cudareduce-res, and in the
# profiles of 2026-12-01, taken before it had that name, the second
# gst-launch-1.0) and the timers.
set -u
source .gpu/env.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=/tmp/profile-src
rm -rf $src && mkdir $src && git ls-files | tar cf - -T - | tar xf - -C $src
(cd $src && git apply "$here/stream-profile.patch") || { echo "the patch does not apply"; exit 1; }
(cd $src && meson setup /tmp/profile-build >/dev/null &&
  ninja -C /tmp/profile-build plugin/libgstcudareduce.so >/dev/null) || { echo "build failed"; exit 1; }
export GST_PLUGIN_PATH_1_0=/tmp/profile-build/plugin GST_REGISTRY_1_0=/tmp/profile-registry.bin
export GST_CUDAREDUCE_CACHE_DIR=/tmp/profile-kernels
caps="audio/x-raw,format=F32LE,channels=2,rate=48000"
threads() { # tid_name ticks, for each thread of process $1
  for t in /proc/$1/task/*; do
    echo "$(basename $t)_$(tr ' ' _ <$t/comm) $(sed 's/.*) //' $t/stat | awk '{print $12+$13}')"
  done 2>/dev/null | sort
}
run() { # label samples-per-buffer buffers cudareduce-properties...
  local label=$1 spb=$2 n=$3; shift 3
  local s=$(date +%s.%N)
  gst-launch-1.0 -q audiotestsrc wave=silence samplesperbuffer=$spb num-buffers=$n ! $caps ! \
    cudareduce monoid=sumsq "$@" ! fakesink sync=false 2>/tmp/profile-err.txt &
  local pid=$!
  sleep 0.7; threads $pid >/tmp/profile-t1; local a=$(date +%s.%N)
  sleep 0.5; threads $pid >/tmp/profile-t2; local b=$(date +%s.%N)
  wait $pid; local rc=$? e=$(date +%s.%N)
  echo "== $label: $n buffers of $((spb * 8)) bytes, rc=$rc, $(awk -v s=$s -v e=$e -v n=$n 'BEGIN{printf "%.0f buffers/s with the start", n/(e-s)}')"
  join /tmp/profile-t1 /tmp/profile-t2 | awk -v dt=$(awk -v a=$a -v b=$b 'BEGIN{print b-a}') \
    '{ printf "   %-30s %5.1f%% CPU\n", $1, ($3-$2)/dt }'
  grep -E "PROF|ERROR|CRITICAL" /tmp/profile-err.txt
}
# the first run compiles the kernel into the cache
gst-launch-1.0 -q audiotestsrc num-buffers=10 ! $caps ! cudareduce monoid=sumsq ! fakesink
run "4 KiB, no messages" 512 300000 post-messages=false
run "4 KiB, a message per buffer" 512 300000
run "64 KiB, no messages" 8192 200000 post-messages=false
run "1 KiB, no messages" 128 300000 post-messages=false
