#!/bin/sh
# Installs the Debian packages rotationd builds, tests, packages and runs with. Safe to run again.
#   build and run:  libiio-dev libudev-dev
#   sensor and service tests:  umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils socat locales
#   make deb (the Build-Depends of debian/control):  debhelper scdoc
#   packaging tests:  man-db (man --warnings), bash-completion, binutils (nm, readelf), dpkg-dev,
#     init-system-helpers (deb-systemd-helper, for the maintainer scripts run in a scratch root)
set -e
PKGS="libiio-dev libudev-dev umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils make socat locales
      debhelper scdoc man-db bash-completion binutils dpkg-dev init-system-helpers"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
