#!/usr/bin/env python3
"""Fails on a documentation link to a file that is not there, and on a file
in docs/perf/ that no document links to.

Usage: check-doc-links.py SOURCE_ROOT

Reads the Markdown files of the tree (README.md, docs/, tests/, examples/),
takes each inline link or image, `[text](target)` and `![alt](target)`,
whose target is a relative path (not a URL, not an anchor of the same
page), and resolves it from the linking file's directory. docs/perf/ holds
the measurements and plots that the documents cite and that meson install
ships with them: a file there that nothing links to is an experiment the
documents no longer read, and goes.
"""

import re
import sys
from pathlib import Path

# A link target runs to the first space or closing parenthesis; an optional
# title ("...") may follow.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
SKIP_DIRS = {".git", "subprojects", "node_modules"}


def is_build_dir(path):
    """A Meson build directory, whatever its name (debhelper's is
    obj-TRIPLET): it holds the installed copies of the documents
    (tools/doc-install.py), whose links are made for the install tree."""
    return (path / "meson-private").is_dir()


def markdown_files(root):
    for path in sorted(root.rglob("*.md")):
        parts = path.relative_to(root).parts
        if any(p in SKIP_DIRS or p.startswith("build") for p in parts[:-1]):
            continue
        if any(is_build_dir(root.joinpath(*parts[:i])) for i in range(1, len(parts))):
            continue
        yield path


def links(path):
    """(line, target) of each relative link outside code."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text())
    text = CODE_SPAN.sub("", text)
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue
        yield text.count("\n", 0, m.start()) + 1, target.split("#", 1)[0]


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    perf = root / "docs" / "perf"
    problems = []
    linked = set()
    n_links = 0
    for md in markdown_files(root):
        for line, target in links(md):
            n_links += 1
            resolved = (md.parent / target).resolve()
            if not resolved.exists():
                problems.append(f"{md.relative_to(root)}:{line}: links to {target}, "
                                "which does not exist")
            linked.add(resolved)
    if perf.is_dir():
        for f in sorted(p for p in perf.rglob("*") if p.is_file()):
            if f not in linked:
                problems.append(f"{f.relative_to(root)}: no document links to it; "
                                "link it from the text that reads it, or delete it")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{n_links} links, all to files that exist; every file in docs/perf/ is linked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
