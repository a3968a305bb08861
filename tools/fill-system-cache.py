#!/usr/bin/env python3
"""Fills the system kernel cache at install time (meson -Dprebuilt-kernels).

    fill-system-cache.py TOOL CACHE_DIR ARCHS TYPES

TOOL is the built cudareduce-monoid; CACHE_DIR the system cache, under
DESTDIR where meson gives one; ARCHS and TYPES comma-separated (90,89 and
float32,uint8). Every built-in monoid's programs, one result and per
channel, for each architecture and input type, are compiled into the
cache with `cudareduce-monoid --fill-cache --all`, the pairs in parallel,
and the cache is then made readable by everyone: the element reads it
after the user's own cache (docs/element.md, "Kernel cache"), so that a
first start of those programs loads an image instead of compiling.

Where NVRTC cannot be opened, nothing is prebuilt and the install goes on:
the element then compiles on first use, as without the option.
"""

import concurrent.futures
import os
import stat
import subprocess
import sys


def fill(tool, cache_dir, arch, type_name):
    env = dict(os.environ)
    env["GST_CUDAREDUCE_CACHE_DIR"] = cache_dir
    # Unbounded while filling, so that no entry sweeps away another; and
    # no other system cache consulted, so that every image is written.
    env["GST_CUDAREDUCE_CACHE_MAX_BYTES"] = "0"
    env["GST_CUDAREDUCE_SYSTEM_CACHE_DIRS"] = ""
    run = subprocess.run(
        [tool, "--fill-cache", "--all", "--arch", arch, "--type", type_name],
        env=env, capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def make_readable(cache_dir):
    """Directories 0755, entries 0644: what the element trusts of a
    system cache, owned by whoever installs (root, for a package)."""
    os.chmod(cache_dir, 0o755)
    for name in os.listdir(cache_dir):
        path = os.path.join(cache_dir, name)
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.chmod(path, 0o644)


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    tool, cache_dir, archs, types = argv[1:]
    destdir = os.environ.get("DESTDIR", "")
    if destdir:
        cache_dir = destdir + cache_dir if os.path.isabs(cache_dir) \
            else os.path.join(destdir, cache_dir)
    pairs = [(a, t) for a in archs.split(",") if a
             for t in types.split(",") if t]
    if not pairs:
        return 0
    os.makedirs(cache_dir, exist_ok=True)
    print(f"Prebuilding kernels into {cache_dir}: sm_{archs}, {types}")
    workers = min(len(pairs), os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        runs = list(pool.map(lambda p: (p, fill(tool, cache_dir, *p)), pairs))
    failed = False
    for (arch, type_name), (code, output) in runs:
        if code != 0 and "could not be opened" in output:
            print("NVRTC could not be opened: no kernels prebuilt; the element "
                  "compiles each program on first use instead")
            return 0
        if code != 0:
            failed = True
            print(f"sm_{arch} {type_name}: failed:\n{output}", file=sys.stderr)
        else:
            last = output.strip().splitlines()[-1:] or [""]
            print(f"sm_{arch} {type_name}: {last[0]}")
    make_readable(cache_dir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
