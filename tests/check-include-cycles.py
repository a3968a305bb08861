#!/usr/bin/env python3
"""Fails on an include cycle among the plugin's files.

Usage: check-include-cycles.py PLUGIN_DIR

A module is a .c file and the headers of its name (cr-reducer.c,
cr-reducer.h and cr-reducer-private.h are one), and the .c files with no
header of their own that include its private header: a module's code
split over several files (cr-reducer-setup.c). Module A depends on B when
a file of A includes a header of B, from the `#include "..."` lines. Any
other .c file with no header of its own declares its functions in another
module's header: that module then depends on it too (whoever includes the
header calls into the file). Each cycle is printed with the lines that
make it.
"""

import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# GNU style: the return type on the line above the name, at column 0.
DEFINITION = re.compile(r"^(?P<type>[^\s#/*{}].*)\n(?P<name>[a-z_][a-z0-9_]*) \(", re.M)


def exported_functions(text):
    return {
        m.group("name")
        for m in DEFINITION.finditer(text)
        if not m.group("type").startswith("static")
    }


def dependencies(plugin):
    """{module: {module: [why, ...]}}"""
    files = {p.name: p for p in plugin.iterdir() if p.suffix in (".c", ".h")}
    texts = {name: p.read_text(errors="replace") for name, p in files.items()}
    own = {p.stem.removesuffix("-private") for p in files.values() if p.suffix == ".h"}

    def module_of(path):
        stem = path.stem
        if path.suffix == ".c" and stem not in own:
            for header in INCLUDE.findall(texts[path.name]):
                if header.endswith("-private.h") and header in files:
                    return header[: -len("-private.h")]
        return stem.removesuffix("-private")

    deps = {module_of(p): {} for p in files.values()}

    def add(a, b, why):
        if a != b:
            deps[a].setdefault(b, []).append(why)

    for name, text in texts.items():
        for header in INCLUDE.findall(text):
            if header in files:
                add(module_of(files[name]), module_of(files[header]),
                    f'{name} includes "{header}"')
    headers = [n for n in files if n.endswith(".h")]
    for name, p in files.items():
        if p.suffix != ".c" or any(module_of(files[h]) == module_of(p) for h in headers):
            continue
        functions = exported_functions(texts[name])
        for h in headers:
            declared = sorted(f for f in functions if re.search(rf"\b{f}\s*\(", texts[h]))
            if declared:
                add(module_of(files[h]), module_of(p),
                    f"{h} declares {', '.join(declared[:3])}{' ...' if len(declared) > 3 else ''}"
                    f" of {name}, which has no header of its own")
    return deps


def cycles(deps):
    """Strongly connected components of more than one module (Tarjan's)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in deps[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(deps):
        if v not in index:
            visit(v)
    return sorted(found)


def main():
    plugin = Path(sys.argv[1] if len(sys.argv) > 1 else "plugin")
    deps = dependencies(plugin)
    found = cycles(deps)
    for component in found:
        print("include cycle: " + " <-> ".join(component))
        for a in component:
            for b in component:
                for why in deps[a].get(b, []):
                    print(f"  {a} -> {b}: {why}")
    if found:
        print(f"{len(found)} include cycle(s) among {plugin}/: each file should "
              "include only modules below it (move what both sides need into a "
              "header of its own)")
        return 1
    print(f"no include cycle among the {len(deps)} modules of {plugin}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
