#!/bin/bash
# repeat-case.sh BUILD TEST CASE SECONDS: on the GPU machine, from the
# project root with .gpu carried, runs one case of a test program (meson's
# TEST, gstcheck's CASE) over and over for SECONDS, each run in a fresh
# process with segv-report.c preloaded and CK_FORK=no, so that a crash
# kills the run that had it and leaves a backtrace. A failing run's output
# and its symbolized backtrace (symbolize.py) are kept in $OUT; the exit
# statuses of all runs are counted at the end.
#   bash tests/stress/repeat-case.sh /tmp/b gpu-multi test_every_gpu_at_once 180
set -u
[ $# -eq 4 ] || { echo "usage: repeat-case.sh BUILD TEST CASE SECONDS" >&2; exit 2; }
build=$1 test=$2 case=$3 secs=$4
out=${OUT:-/tmp/repeat-case}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
stress_reporter && stress_build "$build" "$out/build.log" || exit 1
# meson runs each repetition through this wrapper, which keeps what a
# failing one left.
wrapper=$out/wrapper.sh
cat >"$wrapper" <<WRAP
#!/bin/bash
log=$out/run-\$(date +%s%N).log
CK_FORK=no LD_PRELOAD=/tmp/segv-report.so "\$@" >"\$log" 2>&1
rc=\$?
echo \$rc >>"$out/statuses"
if [ \$rc -eq 0 ]; then rm -f "\$log"; else python3 "$stress_dir/symbolize.py" "\$log" >"\$log.frames"; fi
exit \$rc
WRAP
chmod +x "$wrapper"
rm -f "$out/statuses"
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt $end ]; do
  GST_CHECKS=$case meson test -C "$build" --no-rebuild --wrapper "$wrapper" \
    --logbase "repeat-$test" "$test" >>"$out/meson.log" 2>&1
done
echo "$test $case, exit statuses (count status):"
sort "$out/statuses" | uniq -c
