#!/bin/sh
# What a moving device costs with one subscriber, on every emulated driver of Tests/fixtures/zoo: the device is
# turned on and on about the screen's axis (45° a second, upright through each edge, as in a hand that keeps
# turning it) so that rotationd reads it at its full rate throughout, and wake-ups per second over all of
# rotationd's threads (context switches) and CPU are counted over SECONDS from 3 s after the subscriber got its
# first rotation. Compares two builds when given two binaries: a sensor read through its buffer wakes about ten
# times a second (batches); a polled one once a sample.
#
#   scripts/bench-moving.sh [SECONDS] [ROTATIOND ...]     (default 10 s, the release binary; FIXTURES="a b" to
#                                                         run some only)
#
# Output is meant for Docs/bench-moving.txt.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_MOVING=${1:-10}
[ $# -gt 0 ] && shift
BINS=${*:-$ROOT/.build/release/rotationd}
for b in $BINS; do [ -x "$b" ] || { echo "bench-moving: no $b (make binaries)" >&2; exit 1; }; done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOCK=$OUT/rotationd.sock
# 40 s turning at 45° a second about the z axis, gravity in the x-y plane, at 200 rows a second.
python3 - "$OUT/trace.csv" <<'PY'
import math, sys
g, rows = 9.80665, ["t,x,y,z"]
for i in range(0, 40 * 200):
    t = i / 200
    a = math.radians(45 * t)
    rows.append("%.4f,%.5f,%.5f,%.5f" % (t, g * math.sin(a), -g * math.cos(a), 0.3))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
ALL="hid-sensor bmc150-dual kxcjk-1013 mxc4005 mxc4005-noirq st_accel cros-ec inv_mpu6050 bmi323 st_lsm6dsx mma8452"
echo "rotationd on emulated drivers, turning all the time, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "moving: 45°/s about the screen's axis, one subscriber; wake-ups of all rotationd's threads per second over $SECONDS_MOVING s"
echo
for fixture in ${FIXTURES:-$ALL}; do
    for bin in $BINS; do
        rm -f "$SOCK"
        steps="[[\"start\"],[\"play\",\"$OUT/trace.csv\",$((SECONDS_MOVING + 12))],[\"connect\",\"$SOCK\",10],"
        steps="$steps[\"wait-sock\",\"\\\"rotation\\\":\",15],[\"sleep\",3],[\"measure\",$SECONDS_MOVING],[\"alive\"]]"
        if ! umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "zoo/$fixture.umockdev" \
            --actions "$steps" -- "$bin" --serve --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err"; then
            echo "$fixture ($bin): FAILED"
            grep -v '^kernel: ' "$OUT/run.err" | tail -3
            continue
        fi
        mode=$(grep -o 'as the display accelerometer, [a-z]*' "$OUT/run.err" | head -1 | sed 's/.*, //')
        bench=$(grep -o 'cpu [0-9.]* s per minute.*wake-ups [0-9.]* per second' "$OUT/run.err" | head -1)
        printf '%-30s %-9s %s  (%s)\n' "$fixture" "$mode" "$bench" "$bin"
    done
done
