# common.sh: what the stress scripts share, sourced from the project root.

# The GPU machine has no GStreamer of its own: the bundle's.
pkg-config --exists gstreamer-1.0 || source .gpu/env.sh
stress_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# stress_reporter: segv-report.c built into /tmp/segv-report.so, to preload.
stress_reporter() {
  gcc -shared -fPIC -O1 -o /tmp/segv-report.so "$stress_dir/segv-report.c"
}

# stress_build BUILD LOG [SETUP ARGUMENT...]: BUILD configured (the first
# time, with the arguments: a source directory, options) and built, its
# output in LOG, whose end is printed if either fails.
stress_build() {
  local build=$1 log=$2
  shift 2
  { [ -f "$build/build.ninja" ] || meson setup "$build" "$@"; } >"$log" 2>&1 \
    && meson compile -C "$build" >>"$log" 2>&1 \
    || { tail -30 "$log"; return 1; }
}
