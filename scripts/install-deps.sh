#!/bin/sh
# Installs the Debian packages rotationd builds, tests and runs with. Safe to run again.
set -e
PKGS="libiio-dev libudev-dev umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils make socat locales"
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
