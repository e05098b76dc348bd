#!/bin/sh
# The per-buffer cost of the rotationdtag GStreamer element and the allocations it makes per buffer once running
# (gst/bench-rotationdtag.c), beside identity's, with rotationd serving a replay of a device held still and with
# no service at all. Target: under 5 us a buffer, no allocation per buffer. Also saved to Docs/bench-gst.txt,
# only when the run succeeded.
#   BIN_DIR  where rotationd is (default .build/release)     BUFFERS  buffers per measurement (default 200000)
set -e
cd "$(dirname "$0")/.."
BIN_DIR=${BIN_DIR:-.build/release}
BUFFERS=${BUFFERS:-200000}
[ -x "$BIN_DIR/rotationd" ] || { echo "bench-gst: no rotationd in $BIN_DIR: build it (make release), or set BIN_DIR" >&2; exit 1; }
CBUILD=build/bench-gst
make -s clibs CBUILD=$CBUILD CFLAGS="-O2 -g" >&2
# shellcheck disable=SC2046
gcc -std=c11 -O2 -g -o $CBUILD/bench-rotationdtag gst/bench-rotationdtag.c $(pkg-config --cflags --libs gstreamer-1.0) >&2
TMP=$(mktemp -d /tmp/rbg-XXXXXX)
service=""
trap '[ -n "$service" ] && kill $service; rm -rf "$TMP"' EXIT
# Held left-up for ten minutes: one state, then nothing changes while the buffers go through.
awk 'BEGIN { print "t,x,y,z"; for (i = 0; i < 30000; i++) printf "%.2f,9.810,0.000,0.000\n", i / 50 }' > "$TMP/held.csv"
"$BIN_DIR/rotationd" --replay "$TMP/held.csv" --socket "$TMP/s.sock" 2>"$TMP/service.log" &
service=$!
i=0
while [ ! -S "$TMP/s.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.5
{
    echo "rotationdtag per buffer ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), GStreamer $(pkg-config --modversion gstreamer-1.0)):"
    GST_REGISTRY_1_0=$TMP/registry.bin GST_PLUGIN_PATH=$CBUILD LD_LIBRARY_PATH=$CBUILD $CBUILD/bench-rotationdtag "$TMP/s.sock" "$BUFFERS"
} > "$TMP/report.txt"
cat "$TMP/report.txt"
cp "$TMP/report.txt" Docs/bench-gst.txt
