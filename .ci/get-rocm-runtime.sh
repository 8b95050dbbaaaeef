#!/bin/bash
# Unpack the ROCm 7.2.4 runtime libraries that linking a HIP program needs (libamdhip64.so.7,
# libhsa-runtime64, libamd_comgr, libhipblas) from Debian experimental into DEST, next to the
# -dev packages of `hipify-py toolchain fetch`. Nothing is installed: apt-get download
# through a private apt configuration (the archive is read from the machine's own apt sources),
# then dpkg -x. About 23 MB. The tests link the converted CMake examples against these.
#   usage: get-rocm-runtime.sh DEST        -> DEST/usr/lib/x86_64-linux-gnu/libamdhip64.so.7...
set -euo pipefail
DEST=$(realpath -m "${1:?usage: $0 DEST}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MIRROR=""
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
  MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$MIRROR" ] && [ -r /etc/apt/sources.list ]; then
  MIRROR=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^https?:/){print $i; exit}}' /etc/apt/sources.list)
fi
[ -n "$MIRROR" ] || { echo "no Debian mirror in the apt sources" >&2; exit 1; }

mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR experimental main" \
  > "$WORK/sources.list"
APT=(-o "Dir::Etc::sourcelist=$WORK/sources.list" -o "Dir::Etc::sourceparts=-"
     -o "Dir::State::Lists=$WORK/lists" -o "Dir::Cache=$WORK/cache"
     -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1" -q)
apt-get "${APT[@]}" update >/dev/null
# ROCM_RUNTIME_PKGS overrides the set (benchmarks/cmake_tree.py links against more libraries)
PKGS="${ROCM_RUNTIME_PKGS:-libamdhip64-7 libhsa-runtime64-1 libamd-comgr3 libhipblas3}"
(cd "$WORK/debs" && apt-get "${APT[@]}" download $(printf '%s/experimental ' $PKGS) >/dev/null)
mkdir -p "$DEST"
for d in "$WORK"/debs/*.deb; do
  dpkg-deb -f "$d" Package Version | paste -sd' ' >> "$DEST/PACKAGES.txt"
  dpkg -x "$d" "$DEST"
done
echo "ROCm runtime libraries: $DEST/usr/lib/x86_64-linux-gnu"
