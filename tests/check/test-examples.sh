#!/bin/bash
# test-examples.sh SOURCE_DIR BUSRESULTS LIVELEVELS: what a newcomer meets
# first, on any machine.
#  - examples/launch.sh echoes each command so that a shell reads it back
#    into the arguments it ran with (quotes kept), and a GStreamer
#    structure in one argument stays one argument;
#  - without the plugin where GStreamer looks, bus-results and live-levels
#    exit with status 1 and say to set GST_PLUGIN_PATH.
# Meson runs it with the system's plugins that the examples use and no
# others (GST_PLUGIN_SYSTEM_PATH_1_0, tests/check/meson.build); the
# programs run here inherit that.
set -u
src=$1 bus_results=$2 live_levels=$3
failed=0
fail() { echo "FAIL: $*"; failed=1; }

out=$("$src/examples/launch.sh" --dry-run "$(dirname "$bus_results")/..") ||
  fail "launch.sh --dry-run: status $?"
lines=0
context_seen=0
while IFS= read -r line; do
  case $line in
    "+ gst-launch-1.0 "*) ;;
    *) continue ;;
  esac
  lines=$((lines + 1))
  # The words a shell makes of the line, one per output line.
  if ! words=$(eval "printf '%s\n' ${line#"+ gst-launch-1.0 "}" 2>&1); then
    fail "does not read back: $line: $words"
    continue
  fi
  while IFS= read -r w; do
    case $w in
      context=*) [ "$w" = "context=ctx, lo=(double)-0.5, hi=(double)0.5" ] &&
        context_seen=1 || fail "context read back as '$w'" ;;
    esac
  done <<<"$words"
done <<<"$out"
[ "$lines" -ge 7 ] || fail "launch.sh echoed $lines commands, not 7"
[ "$context_seen" = 1 ] || fail "the range.monoid command lost its context"

empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
for prog in "$bus_results" "$live_levels"; do
  err=$(GST_PLUGIN_PATH_1_0="$empty" GST_PLUGIN_PATH="$empty" \
    GST_REGISTRY_1_0="$empty/registry.bin" "$prog" 2>&1 >/dev/null)
  status=$?
  [ "$status" = 1 ] || fail "$(basename "$prog") without the plugin: status $status"
  case $err in
    *GST_PLUGIN_PATH*) ;;
    *) fail "$(basename "$prog") without the plugin said: $err" ;;
  esac
done
[ "$failed" = 0 ] && echo "examples: ok"
exit $failed
