#!/bin/sh
# Installs the Debian packages rotationd builds, tests and runs with. Safe to run again.
set -e
# The capture example (Docs/examples/capture.py) and its test need GStreamer through python3-gi:
# videotestsrc, videoconvert and appsink (base), videobox, videoflip, jpegenc and jpegdec (good).
PKGS="libiio-dev libudev-dev linux-libc-dev umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils make socat locales
gir1.2-gstreamer-1.0 python3-gst-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good"
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
