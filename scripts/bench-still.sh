#!/bin/sh
# What a still device costs with one subscriber, and how fast the turn after the still spell comes, on every
# emulated driver of Tests/fixtures/zoo (with the kernel's write rules and its event interface, Tests/Testbed/kernel),
# with the sensor's events as its kernel exposes them ("events") and with its events/ directory taken away
# ("no events": today's still pace, a kernel without them):
#
#   still:  the upright pose of Tests/fixtures/zoo/four-poses.csv held for 28 s; rotationd --serve with one
#           subscriber; wake-ups per second over all of rotationd's threads (context switches) over SECONDS from
#           3 s after the subscriber got its first rotation
#   turn:   then the trace's quarter turn (0.65 s) to the left edge up; latency from the end of the turn to the
#           change's arrival at the subscriber (its socket line's arrival on CLOCK_MONOTONIC)
#
#   scripts/bench-still.sh [SECONDS]     (default 20; FIXTURES="kxcjk-1013 mma8452" to run some only)
#
# Uses the release binary from ROTATIOND_BIN_DIR, else .build/release (built if missing). Output is meant for
# Docs/bench-still.txt.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_STILL=${1:-20}
BIN_DIR=${ROTATIOND_BIN_DIR:-$ROOT/.build/release}
[ -x "$BIN_DIR/rotationd" ] || make -s binaries >&2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOCK=$OUT/rotationd.sock
HOLD=28
# The trace: upright for HOLD s (the first 2.95 s of four-poses.csv again and again), the turn, 8 s at 90.
python3 - "$ROOT/Tests/fixtures/zoo/four-poses.csv" "$OUT/trace.csv" "$HOLD" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [(float(l.split(",", 1)[0]), "," + l.split(",", 1)[1]) for l in lines[1:]]
hold = float(sys.argv[3])
out, t = [lines[0]], 0.0
while t < hold:
    out += ["%.4f%s" % (t + dt, rest) for dt, rest in rows if dt < 2.95 and t + dt < hold]
    t += 2.95
out += ["%.4f%s" % (hold + dt - 2.95, rest) for dt, rest in rows if 2.95 <= dt < 3.65]
t = hold + 0.7
while t < hold + 8.7:
    out += ["%.4f%s" % (t + dt - 3.65, rest) for dt, rest in rows if 3.65 <= dt < 6.55]
    t += 2.9
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
TURN_END=$(python3 -c "print($HOLD + 0.65)")
ALL="hid-sensor hid-sensor-hysteresis bmc150-dual bmc150-noirq bmc150-int2 bmc150-lostevent kxcjk-1013 mxc4005 mxc4005-noirq st_accel cros-ec cros-ec-location inv_mpu6050 inv_mpu6050-gyro-scale-x1000 bmi323 st_lsm6dsx st_lsm6dsx-noirq mma8452 dual250e dual250e-silent"

echo "rotationd on emulated drivers, still then a turn, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: rotationd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $BIN_DIR/rotationd, run as: rotationd --serve --socket SOCK"
echo "still: upright, one subscriber, wake-ups of all rotationd's threads per second over $SECONDS_STILL s; turn: the quarter turn"
echo "  after $HOLD s upright, latency from its end to the change's arrival at the subscriber"
echo "events: as the kernel exposes them (armed while still where the driver has a motion event); no events: the"
echo "  fixture without its events/ directory (the still pace: a read every 0.4 s, or a batch every 0.5 s); none: the"
echo "  driver has no events; armed: rotationd got an event descriptor"
echo

for fixture in ${FIXTURES:-$ALL}; do
    modes="none"
    grep -q '^A: events/' "Tests/fixtures/zoo/$fixture.umockdev" && modes="events no-events"
    for mode in $modes; do
        device=$ROOT/Tests/fixtures/zoo/$fixture.umockdev
        if [ "$mode" = no-events ]; then
            mkdir -p "$OUT/plain"
            grep -v '^A: events/' "$device" >"$OUT/plain/$fixture.umockdev"
            cp "Tests/fixtures/zoo/$fixture.json" "$OUT/plain/$fixture.json"
            device=$OUT/plain/$fixture.umockdev
        fi
        rm -f "$SOCK"
        steps="[[\"start\"],[\"play\",\"$OUT/trace.csv\",$((HOLD + 8))],[\"connect\",\"$SOCK\",10],"
        steps="$steps[\"wait-sock\",\"\\\"rotation\\\":0\",15],[\"sleep\",3],[\"measure\",$SECONDS_STILL],"
        steps="$steps[\"wait-sock\",\"\\\"rotation\\\":90\",20],[\"sleep\",0.5],[\"save-sock\",\"$OUT/socket.txt\"],[\"alive\"]]"
        if ! umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "$device" --actions "$steps" \
            -- "$BIN_DIR/rotationd" --serve --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err"; then
            echo "$fixture ($mode): FAILED"
            grep -v '^kernel: ' "$OUT/run.err" | tail -5
            continue
        fi
        refused=$(grep -c '^kernel: write .* E[A-Z]*' "$OUT/run.err" || true)
        capture=$(grep -o 'as the display accelerometer, [a-z]*' "$OUT/run.err" | head -1 | sed 's/.*, //')
        watched=$(grep -c 'IIO_GET_EVENT_FD_IOCTL" ok' "$OUT/run.err" || true)
        python3 - "$OUT/run.err" "$OUT/socket.txt" "$TURN_END" "$fixture" "$mode" "$capture" "$refused" "$watched" <<'PY'
import json, re, sys
err, socket, turn_end, fixture, mode, capture, refused, watched = sys.argv[1:]
text = open(err).read()
start = float(re.search(r"play: started at ([0-9.]+)", text).group(1))
bench = re.search(r"bench: rss ([0-9]+ kB), .*wake-ups ([0-9.]+) per second", text)
arrival = None
for line in open(socket):
    when, msg = line.split(" ", 1)
    m = json.loads(msg)
    if m.get("type") == "state" and m.get("rotation") == 90:
        arrival = float(when)
        break
latency = "%+.0f ms" % ((arrival - start - float(turn_end)) * 1000) if arrival else "missed"
how = "armed" if int(watched) else "not armed"
print("%-30s %-9s %-9s %-9s wake-ups %5.2f/s still, turn %9s; rss %s; refused writes %s"
      % (fixture, mode, capture, how, float(bench.group(2)), latency, bench.group(1), refused))
PY
    done
done
