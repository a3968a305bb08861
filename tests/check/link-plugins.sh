#!/bin/sh
# link-plugins.sh DEST SYSTEM_DIR NAME...: makes DEST a directory holding a
# link to SYSTEM_DIR/libgstNAME.so for each NAME that is there, and nothing
# else. A test whose GST_PLUGIN_SYSTEM_PATH_1_0 is DEST scans and loads
# those plugins only, whatever else the system has installed. Prints the
# names that SYSTEM_DIR lacks (a test that needs one skips or fails as it
# would without the plugin).
set -eu
dest=$1 system=$2
shift 2
rm -rf "$dest"
mkdir -p "$dest"
missing=
for name in "$@"; do
  so=$system/libgst$name.so
  if [ -e "$so" ]; then
    ln -s "$so" "$dest/libgst$name.so"
  else
    missing="$missing $name"
  fi
done
echo "${missing# }"
