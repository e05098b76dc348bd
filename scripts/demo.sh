#!/bin/sh
# The demo: rotationd serves the bundled traces in real time on a private socket, and rotwatch follows
# each, as it would follow a live accelerometer: a tablet turned through every rotation
# (data/demo-50hz.csv), then a convertible folded from closed through laptop and stand into a tablet and
# back (data/demo-fold-50hz.csv, with a camera on its base: rotwatch shows the posture, the hinge and where
# each camera looks).
#   BIN=DIR      where rotationd and rotwatch are (default .build/release)
#   SPEED=N      play the traces N times faster (default 1)
#   TRACE=FILE   serve this trace alone instead
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
SPEED=${SPEED:-1}
TRACE=${TRACE:-}
for b in rotationd rotwatch; do
    [ -x "$BIN/$b" ] || { echo "demo: $BIN/$b is missing; run 'make demo' (or 'swift build -c release')" >&2; exit 2; }
done
dir=$(mktemp -d)
sock="$dir/rotationd.sock"
svc=""; watch=""
stop() {
    [ -n "$watch" ] && kill "$watch" 2>/dev/null || true
    [ -n "$svc" ] && kill "$svc" 2>/dev/null || true
    wait 2>/dev/null || true
    svc=""; watch=""
}
cleanup() {
    stop
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# play FILE [ROTATIOND ARGUMENTS...]: serves FILE, follows it to its end and a moment more, then stops both.
play() {
    trace=$1
    shift
    rm -f "$sock"
    "$BIN/rotationd" --replay "$trace" --socket "$sock" --speed "$SPEED" "$@" &
    svc=$!
    i=0
    while [ ! -S "$sock" ]; do
        i=$((i + 1))
        if [ "$i" -gt 100 ] || ! kill -0 "$svc" 2>/dev/null; then echo "demo: rotationd did not start" >&2; exit 1; fi
        sleep 0.05
    done
    "$BIN/rotwatch" --socket "$sock" &
    watch=$!
    length=$(tail -n 1 "$trace" | cut -d, -f1)
    sleep "$(awk -v l="$length" -v s="$SPEED" 'BEGIN { printf "%.1f", l / s + 1 }')"
    stop
}

if [ -n "$TRACE" ]; then
    play "$TRACE"
else
    echo "== a tablet turned through every rotation, laid flat and lifted again"
    play data/demo-50hz.csv
    echo "== a convertible opened, folded through a stand into a tablet, and opened again; 'world' sits on its base"
    play data/demo-fold-50hz.csv --camera front:front:0 --camera back:back:0 --camera world:front:0::base
fi
