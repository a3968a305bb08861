#!/usr/bin/env python3
"""symbolize.py LOG: file:line for each frame of a crash in LOG, on the
machine that ran it (its binaries, with debug information, still in place).

Reads the two forms of backtrace the stress scripts leave: segv-report.c's
(backtrace_symbols_fd lines ending in [0xADDRESS], then the process's
/proc/self/maps, which place each address in a file) and AddressSanitizer's
frames, "(FILE+0xOFFSET)". Each frame is given to addr2line."""
import re
import subprocess
import sys


def addr2line(path, offset):
    # The return address is one past the call: back up into it.
    try:
        r = subprocess.run(["addr2line", "-f", "-C", "-i", "-p", "-e", path, hex(offset - 1)],
                           capture_output=True, text=True, timeout=20)
        return r.stdout.strip().replace("\n", " | ")
    except (OSError, subprocess.SubprocessError) as e:
        return f"(addr2line: {e})"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: symbolize.py LOG")
    try:
        text = open(sys.argv[1], errors="replace").read()
    except OSError as e:
        sys.exit(f"symbolize.py: {e}")
    maps = [(int(m[1], 16), int(m[2], 16), int(m[3], 16), m[4]) for m in re.finditer(
        r"^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(/\S+)$", text, re.M)]
    for line in text.splitlines():
        m = re.search(r"\[0x([0-9a-f]+)\]\s*$", line)
        if m and maps:
            address = int(m[1], 16)
            found = [(s, o, p) for s, e, o, p in maps if s <= address < e]
            if found:
                s, o, p = found[0]
                print(f"{p}+{hex(address - s + o)}: {addr2line(p, address - s + o)}")
            else:
                print("?", line.strip())
            continue
        m = re.search(r"\((/[^()+]+)\+0x([0-9a-f]+)\)", line)
        if m:
            print(line.strip(), "=>", addr2line(m[1], int(m[2], 16)))


main()
