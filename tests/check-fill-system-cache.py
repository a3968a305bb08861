#!/usr/bin/env python3
"""Checks tools/fill-system-cache.py, the install step of
-Dprebuilt-kernels, with stand-ins for cudareduce-monoid: every pair of
architecture and type filled under DESTDIR with the element's variables
set, the cache made readable as the element trusts a system cache, no
failure where NVRTC is missing (the install goes on), and a failure where
a compile fails.

    check-fill-system-cache.py SOURCE_ROOT
"""

import os
import stat
import subprocess
import sys
import tempfile

# A stand-in for cudareduce-monoid --fill-cache: records its arguments and
# the variables the script sets, and writes an entry as the cache would
# (mode 0600), or fails as STAND_IN says.
STAND_IN = r"""#!/bin/sh
mode="__MODE__"
dir="$GST_CUDAREDUCE_CACHE_DIR"
echo "$* max=$GST_CUDAREDUCE_CACHE_MAX_BYTES system=[$GST_CUDAREDUCE_SYSTEM_CACHE_DIRS]" >> "__LOG__"
case "$mode" in
  no-nvrtc) echo "sum on float32: NVRTC (libnvrtc.so) could not be opened; install the CUDA runtime compiler"; exit 1;;
  fails) echo "sum on float32: the monoid does not compile"; exit 1;;
esac
mkdir -p "$dir"
name="$dir/$(echo "$*" | tr ' =-' '___').bin"
(umask 077; echo image > "$name")
echo "programs in the cache"
"""


def run(root, work, mode, archs="90,89", types="float32,uint8"):
    log = os.path.join(work, mode + ".log")
    tool = os.path.join(work, mode + "-tool")
    with open(tool, "w") as f:
        f.write(STAND_IN.replace("__MODE__", mode).replace("__LOG__", log))
    os.chmod(tool, 0o755)
    dest = os.path.join(work, mode + "-dest")
    env = dict(os.environ, DESTDIR=dest)
    env.pop("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS", None)
    # A strict umask, as a packager's may be: what is made is 0700 and 0600
    # until the script opens it up.
    proc = subprocess.run(
        [sys.executable, os.path.join(root, "tools", "fill-system-cache.py"),
         tool, "/usr/share/gstcudareduce/kernels", archs, types],
        env=env, capture_output=True, text=True,
        preexec_fn=lambda: os.umask(0o077))
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    return proc, calls, dest + "/usr/share/gstcudareduce/kernels"


def check(condition, what, proc=None):
    if not condition:
        detail = f"\n{proc.stdout}{proc.stderr}" if proc else ""
        sys.exit(f"check-fill-system-cache: {what}{detail}")


def main():
    root = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        proc, calls, cache = run(root, work, "fills")
        check(proc.returncode == 0, "a fill failed", proc)
        want = sorted(f"--fill-cache --all --arch {a} --type {t} max=0 system=[]"
                      for a in ("90", "89") for t in ("float32", "uint8"))
        check(sorted(calls) == want, f"the tool was run as {calls}", proc)
        check(stat.S_IMODE(os.stat(cache).st_mode) == 0o755,
              "the cache directory is not 0755")
        entries = os.listdir(cache)
        check(len(entries) == 4, f"entries: {entries}")
        for name in entries:
            mode = stat.S_IMODE(os.stat(os.path.join(cache, name)).st_mode)
            check(mode == 0o644, f"{name} is {oct(mode)}, not 0644")

        proc, calls, cache = run(root, work, "no-nvrtc")
        check(proc.returncode == 0, "a missing NVRTC failed the install", proc)
        check("no kernels prebuilt" in proc.stdout, "no word of the skip", proc)

        proc, calls, cache = run(root, work, "fails")
        check(proc.returncode != 0, "a failed compile went unnoticed", proc)
        check("does not compile" in proc.stderr, "the failure not shown", proc)

        proc, calls, cache = run(root, work, "none", archs="", types="")
        check(proc.returncode == 0 and not calls, "ran with nothing to do",
              proc)
    print("check-fill-system-cache: ok")


if __name__ == "__main__":
    main()
