#!/usr/bin/env bash
# gst-launch-1.0 with a monoid whose code never ends: it ends by itself
# after the element's error, with and without -e, and on SIGINT before the
# error. Usage: test-gpu-stuck-launch.sh GST_LAUNCH. Exit 77 (skip) where
# cudareduce cannot run a kernel, unless CUDAREDUCE_REQUIRE_GPU=1.
set -u
launch=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The CPU suite runs this against the fake driver (element-fake-stuck),
# whose kernels never end when their source says CR_FAKE_NEVER_ENDS.
spin_load=${CR_SPIN_LOAD:-'Acc r; while (clock64 () > 0) {} r.s = x; return r;'}
spin=(cudareduce monoid=spin accumulator=s:wide
  "load=\"$spin_load\""
  'combine="Acc r; r.s = a.s + b.s; return r;"'
  'identity="Acc r; r.s = 0; return r;"')
src=(audiotestsrc samplesperbuffer=4800 !
  audio/x-raw,format=F32LE,rate=48000,channels=1 !)

# A kernel that never ends cannot be sanitized to its end.
if [[ -n ${CUDAREDUCE_UNDER_SANITIZER:-} ]]; then
  echo "SKIP: under compute-sanitizer"; exit 77
fi

if ! timeout 120 "$launch" audiotestsrc num-buffers=1 ! cudareduce ! fakesink \
    >"$log" 2>&1; then
  if [[ ${CUDAREDUCE_REQUIRE_GPU:-0} == 1 ]]; then
    echo "FAIL: cudareduce cannot run here:"; cat "$log"; exit 1
  fi
  echo "SKIP: cudareduce cannot run here"; exit 77
fi

fail() { echo "FAIL: $*"; cat "$log"; exit 1; }

# Ends by itself, with the element's error, with and without -e.
for eos in "" -e; do
  start=$SECONDS
  timeout 60 "$launch" $eos "${src[@]}" "${spin[@]}" gpu-timeout=2000000000 \
    ! fakesink >"$log" 2>&1
  rc=$?
  [[ $rc == 124 ]] && fail "gst-launch-1.0 $eos still ran after 60 s"
  [[ $rc == 0 ]] && fail "gst-launch-1.0 $eos exited 0 after a stuck monoid"
  grep -q "did not finish" "$log" || fail "no error about the GPU ($eos)"
  echo "gst-launch-1.0 $eos: exit $rc after $((SECONDS - start)) s"
done

# SIGINT while the kernel runs, before gpu-timeout: gst-launch stops the
# pipeline (-e: sends EOS first, and waits in doing so until the element
# gives up), which ends once the element gives up.
for eos in "" -e; do
  "$launch" $eos "${src[@]}" "${spin[@]}" gpu-timeout=5000000000 ! fakesink \
    >"$log" 2>&1 &
  pid=$!
  sleep 2
  kill -INT "$pid"
  for ((i = 0; i < 600; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    for t in /proc/"$pid"/task/*; do
      echo "thread $(cat "$t/comm" 2>/dev/null): $(cat "$t/wchan" 2>/dev/null)"
    done >>"$log"
    kill -KILL "$pid"
    fail "gst-launch-1.0 $eos still ran 60 s after SIGINT"
  fi
  wait "$pid"
  echo "gst-launch-1.0 $eos after SIGINT: exit $? within $((i / 10)) s"
done
exit 0
