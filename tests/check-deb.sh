#!/usr/bin/env bash
# The Debian packages end to end (`./run deb-check`, and a step of CI):
# build them with `./run deb`, lintian with no error, install them with apt,
# check what they installed without GST_PLUGIN_PATH (gst-inspect-1.0 finds
# the element in the system's plugin directory, cudareduce-monoid --list
# runs, the installed documents link only to installed files), then purge
# them. Needs root or sudo, for apt. A couple of minutes; the build itself
# (nocheck) about a minute on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DEB_BUILD_DIR:-build-deb}
packages=(gstreamer1.0-cudareduce cudareduce-tools)

sudo=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=sudo
  else
    echo "check-deb: installing the packages needs root (or sudo without a password); run as root" >&2
    exit 1
  fi
fi

step() { printf '\n== check-deb: %s (%ds)\n' "$1" "$SECONDS"; }

purge() {
  local installed=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && installed+=("$p")
  done
  [ ${#installed[@]} -eq 0 ] && return 0
  DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq "${installed[@]}"
}

step "versions"
# debian/changelog follows meson.build's project version (a native package:
# no Debian revision).
meson_version=$(sed -n "s/^  version : '\([^']*\)',\$/\1/p" meson.build)
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
if [ -z "$meson_version" ] || [ "$meson_version" != "$deb_version" ]; then
  echo "check-deb: debian/changelog is at '$deb_version', meson.build at '$meson_version'; add a changelog entry (dch -v $meson_version)" >&2
  exit 1
fi
echo "$deb_version"

step "build (./run deb)"
DEB_BUILD_DIR=$dir ./run deb

step "lintian"
changes=("$dir"/cudareduce_*.changes)
[ -f "${changes[0]}" ] || { echo "check-deb: no .changes in $dir" >&2; exit 1; }
# Errors fail the step; warnings are printed to be read.
lintian --fail-on error --display-info "${changes[@]}"

step "install with apt"
# A copy installed before (another build of the same version) would keep
# apt from installing this one.
purge
debs=()
for p in "${packages[@]}"; do
  debs+=("./$(ls "$dir"/"${p}"_*.deb)")
done
# Without Recommends: the driver and NVRTC are in non-free, and this checks
# that the packages install and load without them.
if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${debs[@]}"; then
  echo "check-deb: apt-get install ${debs[*]} failed" >&2
  exit 1
fi
trap 'step "purge (after a failure)"; purge' EXIT

step "gst-inspect-1.0 cudareduce, no GST_PLUGIN_PATH"
tmp=$(mktemp -d)
# A registry of its own, so that what it finds is what the system's plugin
# directory holds now, not a registry left from a build tree.
out=$(env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 -u GST_PLUGIN_SYSTEM_PATH \
  -u GST_PLUGIN_SYSTEM_PATH_1_0 GST_REGISTRY_1_0="$tmp/registry.bin" \
  gst-inspect-1.0 cudareduce 2>&1) || {
  echo "$out"
  echo "check-deb: gst-inspect-1.0 cudareduce failed with the package installed" >&2
  exit 1
}
head -40 <<<"$out"
# The element's factory, loaded from the package's file: the plugin
# registers the element whether or not a driver is there (on GStreamer 1.24
# and later it adds a status line when libcuda.so.1 cannot be opened).
plugin_file=$(dpkg -L gstreamer1.0-cudareduce | grep '/gstreamer-1.0/libgstcudareduce\.so$')
grep -q '^Factory Details:' <<<"$out" || { echo "check-deb: no factory details for cudareduce" >&2; exit 1; }
# (/lib and /usr/lib are one directory on a merged-/usr system.)
loaded=$(sed -n 's/^ *Filename *//p' <<<"$out")
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$plugin_file")" ] || {
  echo "check-deb: cudareduce was loaded from '$loaded', not from $plugin_file" >&2; exit 1; }
grep -Eq '^ +Long-name +' <<<"$out"
# --exists alone asks for GStreamer's own version; the plugin has its own.
version=$(dpkg-query -W -f='${Version}' gstreamer1.0-cudareduce)
env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 GST_REGISTRY_1_0="$tmp/registry.bin" \
  gst-inspect-1.0 --exists --atleast-version="${version%%-*}" cudareduce || {
  echo "check-deb: gst-inspect-1.0 --exists --atleast-version=${version%%-*} cudareduce failed" >&2; exit 1; }

step "cudareduce-monoid --list"
[ "$(command -v cudareduce-monoid)" = /usr/bin/cudareduce-monoid ]
list=$(cudareduce-monoid --list)
head -12 <<<"$list"
for m in sum sumsq min max minmax absmax mean_var count_gt argmax; do
  grep -qw "$m" <<<"$list" || { echo "check-deb: --list does not name $m" >&2; exit 1; }
done
dpkg -L cudareduce-tools | grep -q "/man1/cudareduce-monoid\.1\.gz$"

step "installed documents"
doc=/usr/share/doc/gstreamer1.0-cudareduce
python3 tests/check-doc-links.py "$doc"
[ -f "$doc/examples/monoids/range.monoid" ] && [ -f /usr/share/doc/cudareduce-tools/copyright ]

step "purge"
trap - EXIT
rm -rf "$tmp"
purge
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    echo "check-deb: $p is still installed after the purge" >&2
    exit 1
  fi
done
[ ! -e /usr/bin/cudareduce-monoid ] && [ ! -e "$plugin_file" ] && [ ! -e "$doc" ]
step "done"
