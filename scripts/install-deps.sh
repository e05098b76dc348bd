#!/bin/sh
# Installs the Debian packages rotationd builds, tests, packages and runs with. Safe to run again.
#   build and run:  libiio-dev libudev-dev
#   sensor and service tests:  umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils socat locales, and gcc
#     with libc6-dev to build Tests/Testbed/kernel (the kernel's write rules for emulated devices)
#   make deb (the Build-Depends of debian/control):  debhelper scdoc
#   packaging tests:  man-db (man --warnings), bash-completion, binutils (nm, readelf), dpkg-dev,
#     init-system-helpers (deb-systemd-helper, for the maintainer scripts run in a scratch root), lintian,
#     acl (setfacl and getfacl: the udev helper grants the service read on camera sensor sub-devices with an ACL)
set -e
#   cameras:  linux-libc-dev (the V4L2 and media controller headers); the capture examples (Docs/examples/
#     capture.py, still.py, record.py) and their tests need GStreamer through python3-gi: videotestsrc,
#     videoconvert and appsink (base), videobox, videoflip, jpegenc, jpegdec and mp4mux (good), GstTag for
#     still.py's EXIF segment (gir1.2-gst-plugins-base-1.0), x264enc for record.py (ugly)
#   the examples' tests read the files back with outside tools: exiftool (libimage-exiftool-perl), ffprobe
#     and ffmpeg (ffmpeg)
#   the C library and the GStreamer element (make clibs, and make deb's Build-Depends):  libjson-c-dev (the JSON
#     parser), libgstreamer1.0-dev (the element's base class), pkgconf; their tests (scripts/test-c.sh):
#     gstreamer1.0-plugins-bad (jifmux), gstreamer1.0-tools (gst-launch-1.0, gst-inspect-1.0) and the GStreamer
#     packages above (videotestsrc, taginject, jpegenc, videoflip); the fuzzer is the Swift toolchain's clang
#   the QtSensors backend plugin (make qt, and make deb's Build-Depends):  qt6-sensors-dev (QtSensors' headers,
#     Qt6Sensors.pc and libqt6sensors6), qt6-base-dev-tools (moc and qtpaths6, which gives Qt's plugin directory)
#     and g++; its test (scripts/test-c.sh, part qt) builds a QOrientationSensor program with the same
#   the sandboxed client test:  bubblewrap (bwrap)
#   rotwatch --exec turning a real compositor (scripts/test-c.sh, part sway):  sway (headless, with swaymsg)
#   the package booted under systemd in a container (SystemdBootTests):  systemd-container (systemd-nspawn)
#   the release link's list of hot functions (scripts/hot-functions.sh):  valgrind
#   rotationd beside its neighbours (NeighbourTests: the real iio-sensor-proxy in the test bed, claimed by its
#     monitor-sensor over a private system bus):  iio-sensor-proxy, dbus (dbus-daemon)
#   rotationd --fix-mount's tests (MountFixTests):  udev (systemd-hwdb, which compiles and queries the entry it
#     installs under a scratch root), tmux (the guide driven in a terminal, its screen read back)
#   the tablet-mode switch's fail-safe seen by the real libinput (TabletModeSwitchSafetyTests: the test bed's
#     libinput step builds Tests/Testbed/probes/libinput-seat.c):  libinput-dev (with libinput10)
PKGS="libiio-dev libudev-dev linux-libc-dev umockdev python3-gi gir1.2-umockdev-1.0 systemd libiio-utils make socat locales gcc libc6-dev
      debhelper scdoc man-db bash-completion binutils dpkg-dev init-system-helpers lintian acl
      gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 python3-gst-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good
      gstreamer1.0-plugins-ugly libimage-exiftool-perl ffmpeg bubblewrap valgrind
      libjson-c-dev libgstreamer1.0-dev pkgconf gstreamer1.0-plugins-bad gstreamer1.0-tools systemd-container
      sway qt6-sensors-dev qt6-base-dev-tools g++ iio-sensor-proxy dbus udev tmux libinput-dev"
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
