#!/bin/bash
# regions-frame-time.sh [FRAMES]: the element's time a frame with regions,
# in gst-launch-1.0 as a user runs it: 1080p NV12 frames (in GPU memory
# through cudaupload, or host memory with MEMORY=host), reduced with
# mean_var whole, over 256 regions of 64 x 64 and over 1,024 of 16 x 16,
# against identity in the element's place. Each is the marginal time a
# frame between runs of FRAMES (default 1000) and 3 x FRAMES frames, best
# of three, so that the process's start and CUDA's set-up cancel out (on
# the H200 machine they vary by more than 400 frames' worth: 200 was too
# few). The source repeats one rendered frame (videotestsrc
# pattern=solid-color, which still writes each frame: about a third of a
# millisecond at 1080p), where a moving pattern costs several milliseconds
# a frame and would swamp the element's time. GST_PLUGIN_PATH must lead to
# the plugin.
set -u
frames=${1:-1000}
memory=${MEMORY:-cuda}
rects() { # count size spacing_x spacing_y per_line
  python3 -c "import sys; n,s,dx,dy,pl=map(int,sys.argv[1:]); \
print('<' + ','.join('<%d,%d,%d,%d>' % (dx*(i%pl), dy*(i//pl), s, s) for i in range(n)) + '>')" "$@"
}
r256=$(rects 256 64 112 64 16)
r1024=$(rects 1024 16 32 32 32)
caps="video/x-raw,format=NV12,width=1920,height=1080"
upload=""
[ "$memory" = cuda ] && upload="cudaupload ! video/x-raw(memory:CUDAMemory) !"

# run ELEMENT... : microseconds of one gst-launch-1.0 of N frames
run() {
  local n=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086 # upload is a list of pipeline words
  gst-launch-1.0 -q videotestsrc pattern=solid-color num-buffers="$n" ! \
    "$caps" ! $upload "$@" ! fakesink sync=false >/dev/null 2>&1 || return 1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}

# marginal LABEL ELEMENT...: prints the best of three marginal times
marginal() {
  local label=$1 best="" a b m
  shift
  for _ in 1 2 3; do
    a=$(run "$frames" "$@") && b=$(run $((3 * frames)) "$@") || {
      echo "$label: the pipeline failed"
      return 1
    }
    m=$(((b - a) / (2 * frames)))
    [ -z "$best" ] || [ "$m" -lt "$best" ] && best=$m
  done
  printf '%-28s %6d us a frame\n' "$label" "$best"
}

echo "1080p NV12 in $memory memory, marginal over $frames -> $((3 * frames)) frames"
marginal "identity" identity
marginal "cudareduce whole" cudareduce monoid=mean_var
marginal "cudareduce 256 of 64x64" cudareduce monoid=mean_var "regions=$r256"
marginal "cudareduce 1024 of 16x16" cudareduce monoid=mean_var "regions=$r1024"
