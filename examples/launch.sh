#!/bin/sh
# A few gst-launch-1.0 pipelines through cudareduce, with the plugin taken
# from a build directory. Each prints its bus messages (-m); the results are
# the element messages named "cudareduce".
#
# Usage: examples/launch.sh [--dry-run] [BUILD_DIR]   (default: build, from
# the current directory). Needs gst-launch-1.0 (gstreamer1.0-tools) and the
# test sources (gstreamer1.0-plugins-base); without a CUDA driver every
# pipeline stops at once with the element's error. Each command is echoed
# quoted as a shell reads it, so that it can be pasted; --dry-run only
# echoes them.

dry_run=
if [ "${1:-}" = --dry-run ]; then
  dry_run=1
  shift
fi
build=${1:-build}
if [ ! -e "$build/plugin/libgstcudareduce.so" ]; then
  echo "No plugin in $build/plugin; build first: meson setup $build && ninja -C $build" >&2
  exit 1
fi
plugins=$(cd "$build/plugin" && pwd)
export GST_PLUGIN_PATH="$plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
examples=$(cd "$(dirname "$0")" && pwd)
status=0

# $1 as a shell reads it back: as it is where it holds only characters
# that need no quoting (and a lone !, gst-launch's link), else in single
# quotes (a quote inside as '\'').
quote() {
  case $1 in
    '!') printf '!' ;;
    '' | *[!A-Za-z0-9_./=:,+@%^-]*)
      printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
  esac
}

run() {
  line=gst-launch-1.0
  for arg in "$@"; do
    line="$line $(quote "$arg")"
  done
  echo "+ $line"
  [ -n "$dry_run" ] && return
  gst-launch-1.0 "$@" || status=1
  echo
}

# Mean and variance of every buffer of a sine wave.
run -m audiotestsrc num-buffers=5 \
  ! audio/x-raw,format=F32LE,channels=1,rate=48000 \
  ! cudareduce monoid=mean_var ! fakesink

# Pixels brighter than 200 in each frame of the test pattern.
run -m videotestsrc num-buffers=3 \
  ! video/x-raw,format=GRAY8,width=320,height=240 \
  ! cudareduce monoid=count_gt threshold=200 ! fakesink

# Mean brightness of each I420 frame: the luma plane alone.
run -m videotestsrc num-buffers=3 \
  ! video/x-raw,format=I420,width=320,height=240 \
  ! cudareduce monoid=mean_var component=0 ! fakesink

# Minimum and maximum of Y, U and V in each NV12 frame, each over its own
# samples (the message's "counts" says how many).
run -m videotestsrc num-buffers=3 \
  ! video/x-raw,format=NV12,width=320,height=240 \
  ! cudareduce monoid=minmax per-channel=true ! fakesink

# A monoid from a file, with its two context fields: samples outside
# [-0.5, 0.5], and the index of the first of them, in each buffer.
run -m audiotestsrc num-buffers=5 \
  ! audio/x-raw,format=F32LE,channels=1,rate=48000 \
  ! cudareduce monoid="$examples/monoids/range.monoid" \
      context="ctx, lo=(double)-0.5, hi=(double)0.5" \
  ! fakesink

# Sums of squares per channel of stereo noise, one result per 50 ms across
# buffers (as the level element reports), the last, shorter one at EOS.
run -m audiotestsrc num-buffers=10 wave=white-noise \
  ! audio/x-raw,format=F32LE,channels=2,rate=48000 \
  ! cudareduce monoid=sumsq per-channel=true interval=50000000 ! fakesink

# The largest value of each colour component in each frame.
run -m videotestsrc num-buffers=2 \
  ! video/x-raw,format=RGBx,width=320,height=240 \
  ! cudareduce monoid=max per-channel=true ! fakesink

# What FFmpeg's signalstats reports of Y, U and V in each frame (min, low,
# avg, high, max, and the 256 counts), with each plane's median.
run -m videotestsrc num-buffers=2 \
  ! video/x-raw,format=NV12,width=320,height=240 \
  ! cudareduce monoid=signalstats per-channel=true percentiles="<0.5>" \
  ! fakesink

# A vectorscope: U against V of each frame, counted in 16 x 16 bins.
run -m videotestsrc num-buffers=2 pattern=smpte \
  ! video/x-raw,format=NV12,width=320,height=240 \
  ! cudareduce monoid=vectorscope bins=16 ! fakesink

exit $status
