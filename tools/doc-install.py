#!/usr/bin/env python3
"""Writes the copy of a Markdown document that meson install ships.

Usage: doc-install.py SOURCE_ROOT DOCUMENT OUTPUT INSTALLED...

DOCUMENT is the document's path from SOURCE_ROOT (README.md,
docs/element.md); INSTALLED are the paths, from SOURCE_ROOT, of the files
and folders that are installed with the documentation, in the same layout
(README.md, docs/perf, examples/monoids...). A link, `[text](target)`, whose
target is a relative path outside them (the tests, the build files, CI:
what a checkout has and an installed package does not) becomes its text
alone, so that the installed documents link only to files that are
installed. Links to installed files, URLs, anchors, and everything in code
spans and fenced code blocks are copied unchanged. tests/check-doc-links.py
run over the installed documentation directory checks the result.
"""

import re
import sys
from pathlib import Path, PurePosixPath

# As in tests/check-doc-links.py: fenced blocks and code spans are skipped;
# a link target runs to the first space or closing parenthesis.
TOKEN = re.compile(
    r"(?ms:^(```|~~~).*?^\1)"
    r"|`[^`\n]*`"
    r"|(?P<img>!?)\[(?P<text>[^\]]*)\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
)


def normalise(path):
    parts = []
    for p in PurePosixPath(path).parts:
        if p == "..":
            if not parts:
                return None  # outside the source tree
            parts.pop()
        elif p != ".":
            parts.append(p)
    return "/".join(parts)


def main():
    root = Path(sys.argv[1])
    document = sys.argv[2]
    output = Path(sys.argv[3])
    installed = [normalise(p.rstrip("/")) for p in sys.argv[4:]]
    base = PurePosixPath(document).parent

    def is_installed(target):
        rel = normalise(str(base / target.split("#", 1)[0]))
        if rel is None:
            return False
        return any(rel == p or rel.startswith(p + "/") for p in installed)

    def replace(m):
        target = m.group("target")
        if target is None:
            return m.group(0)  # code
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            return m.group(0)
        if is_installed(target):
            return m.group(0)
        return m.group("text")

    text = (root / document).read_text(encoding="utf-8")
    output.write_text(TOKEN.sub(replace, text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
