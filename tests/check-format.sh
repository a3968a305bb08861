#!/bin/sh
# Fails when a C source differs from what .clang-format makes of it.
# Fix with: clang-format -i $(find plugin tests examples tools -name '*.[ch]')
set -e
cd "$(dirname "$0")/.."
find plugin tests examples tools -name '*.[ch]' -print0 |
  xargs -0 clang-format --dry-run --Werror
