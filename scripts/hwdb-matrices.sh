#!/bin/sh
# Prints every distinct ACCEL_MOUNT_MATRIX value of the systemd hwdb that Debian's udev package ships, with a
# header naming the package version and the file: the content of Tests/fixtures/hwdb-accel-mount-matrices.txt.
#   scripts/hwdb-matrices.sh > Tests/fixtures/hwdb-accel-mount-matrices.txt
# Needs apt-get and dpkg-deb; downloads the package into a scratch directory, installs nothing.
set -e
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
apt-get download udev >/dev/null 2>&1 || { echo "hwdb-matrices: apt-get download udev failed (run apt-get update?)" >&2; exit 2; }
DEB=$(ls udev_*.deb)
dpkg-deb -x "$DEB" x
FILE=lib/udev/hwdb.d/60-sensor.hwdb
[ -f "x/$FILE" ] || FILE=usr/lib/udev/hwdb.d/60-sensor.hwdb
VERSION=$(dpkg-deb -f "$DEB" Version)
ARCH=$(dpkg-deb -f "$DEB" Architecture)
ENTRIES=$(grep -c '^ ACCEL_MOUNT_MATRIX=' "x/$FILE")
echo "# Every distinct ACCEL_MOUNT_MATRIX value of the systemd hwdb, one a line, as written after the '='"
echo "# (spacing and any trailing blank kept). Extracted from /$FILE in the Debian package"
echo "# udev $VERSION ($ARCH) by scripts/hwdb-matrices.sh: $ENTRIES entries, the distinct values below."
grep '^ ACCEL_MOUNT_MATRIX=' "x/$FILE" | sed 's/^ ACCEL_MOUNT_MATRIX=//' | LC_ALL=C sort -u
