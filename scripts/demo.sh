#!/bin/sh
# The demo: rotationd serves the bundled trace in real time on a private socket,
# and rotwatch follows it, as it would follow a live accelerometer.
#   BIN=DIR      where rotationd and rotwatch are (default .build/release)
#   SPEED=N      play the trace N times faster (default 1)
#   TRACE=FILE   another trace to serve (default data/demo-50hz.csv)
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
SPEED=${SPEED:-1}
TRACE=${TRACE:-data/demo-50hz.csv}
for b in rotationd rotwatch; do
    [ -x "$BIN/$b" ] || { echo "demo: $BIN/$b is missing; run 'make demo' (or 'swift build -c release')" >&2; exit 2; }
done
dir=$(mktemp -d)
sock="$dir/rotationd.sock"
svc=""; watch=""
cleanup() {
    [ -n "$watch" ] && kill "$watch" 2>/dev/null || true
    [ -n "$svc" ] && kill "$svc" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$BIN/rotationd" --replay "$TRACE" --socket "$sock" --speed "$SPEED" &
svc=$!
i=0
while [ ! -S "$sock" ]; do
    i=$((i + 1))
    if [ "$i" -gt 100 ] || ! kill -0 "$svc" 2>/dev/null; then echo "demo: rotationd did not start" >&2; exit 1; fi
    sleep 0.05
done
"$BIN/rotwatch" --socket "$sock" &
watch=$!
# Follow the whole trace, then a moment more, then stop both.
length=$(tail -n 1 "$TRACE" | cut -d, -f1)
sleep "$(awk -v l="$length" -v s="$SPEED" 'BEGIN { printf "%.1f", l / s + 1 }')"
