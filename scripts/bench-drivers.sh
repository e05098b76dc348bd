#!/bin/sh
# How fast a turn is published, and how often rotationd wakes while the device is still, on emulated real
# drivers (Tests/fixtures/zoo) with the kernel's write rules: a HID sensor hub and a Bosch bmc150 (buffered),
# and an mxc4005 without an interrupt line (polled) beside them.
#
#   turns:  Tests/fixtures/zoo/four-poses.csv played in a loop for LOOPS loops (four quarter turns of 0.6 s
#           each per loop, every pose held 3 s, so each turn starts while rotationd samples at its still pace);
#           latency is from the end of each turn in the trace to the arrival of the change at a subscriber of
#           rotationd --serve (its socket line's arrival on CLOCK_MONOTONIC)
#   still:  the first 3 s of that trace held for SECONDS: wake-ups per second over all of rotationd's threads,
#           CPU and resident memory, one subscriber connected
#
#   scripts/bench-drivers.sh [LOOPS] [SECONDS]     (defaults 6 and 30)
#
# Uses the release binary from ROTATIOND_BIN_DIR, else .build/release (built if missing). Output is meant for
# Docs/bench-drivers.txt.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LOOPS=${1:-6}
STILL_SECONDS=${2:-30}
BIN_DIR=${ROTATIOND_BIN_DIR:-$ROOT/.build/release}
[ -x "$BIN_DIR/rotationd" ] || make -s binaries >&2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOCK=$OUT/rotationd.sock
POSES=$ROOT/Tests/fixtures/zoo/four-poses.csv
python3 scripts/upright-poses.py "$POSES" "$OUT/still.csv"
PERIOD=$(python3 -c "
rows = [l.split(',') for l in open('$POSES').read().splitlines()[1:]]
print(float(rows[-1][0]) + float(rows[1][0]) - float(rows[0][0]))")

echo "rotationd on emulated drivers, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores"
echo "binary: rotationd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $BIN_DIR/rotationd, run as: rotationd --serve --socket SOCK"
echo "turns: four-poses.csv played $LOOPS times ($((LOOPS * 4)) quarter turns of 0.6 s, poses held 3 s); latency from the end of each turn"
echo "  to the change's arrival at a subscriber; negative when it arrives before the turn ends"
echo "still: $STILL_SECONDS s upright, one subscriber; wake-ups are context switches of all rotationd's threads per second"
echo

for fixture in ${FIXTURES:-hid-sensor bmc150-dual mxc4005-noirq}; do
    rm -f "$SOCK"
    seconds=$(python3 -c "print(int($PERIOD * $LOOPS + 3))")
    steps="[[\"start\"],[\"play\",\"zoo/four-poses.csv\",$seconds],[\"connect\",\"$SOCK\",10],"
    steps="$steps[\"sleep\",$((seconds - 1))],[\"save-sock\",\"$OUT/socket.txt\"],[\"alive\"]]"
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "zoo/$fixture.umockdev" --actions "$steps" \
        -- "$BIN_DIR/rotationd" --serve --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err" || {
        echo "$fixture: FAILED"; cat "$OUT/run.err"; exit 1; }
    mode=$(grep -o 'as the display accelerometer, [a-z]*' "$OUT/run.err" | head -1 | sed 's/.*, //')
    refused=$(grep -c '^kernel: write .* E[A-Z]*' "$OUT/run.err" || true)
    python3 - "$OUT/run.err" "$OUT/socket.txt" "$PERIOD" "$fixture ($mode)" "$refused" <<'PY'
import json, re, sys
err, socket, period, label, refused = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
start = float(re.search(r"play: started at ([0-9.]+)", open(err).read()).group(1))
arrivals, last = [], None
for line in open(socket):
    when, text = line.split(" ", 1)
    msg = json.loads(text)
    if msg.get("type") == "state" and msg.get("rotation") is not None and msg["rotation"] != last:
        arrivals.append((float(when) - start, msg["rotation"]))
        last = msg["rotation"]
# Turns end 3.6, 7.2, 10.8 and 14.4 s into each loop, at 90, 180, 270 and 0.
ends = [(k * period + e, r) for k in range(20) for e, r in ((3.6, 90), (7.2, 180), (10.8, 270), (14.4, 0))]
latencies, missed, spurious = [], 0, 0
horizon = arrivals[-1][0] if arrivals else 0
for end, rotation in ends:
    if end > horizon + 1:
        break
    hits = [t for t, r in arrivals if r == rotation and end - 0.6 <= t <= end + 2]
    if hits:
        latencies.append((hits[0] - end) * 1000)
    else:
        missed += 1
expected = {r for _, r in ends}
for t, r in arrivals[1:]:
    if not any(end - 0.6 <= t <= end + 2 and r == er for end, er in ends):
        spurious += 1
latencies.sort()
def pct(q):
    return latencies[min(len(latencies) - 1, int(round(q * (len(latencies) - 1))))] if latencies else float("nan")
print("%-26s turns %2d, missed %d, spurious %d, latency p50 %+.0f ms, p95 %+.0f ms, max %+.0f ms; refused writes %s"
      % (label, len(latencies), missed, spurious, pct(0.5), pct(0.95), latencies[-1] if latencies else float("nan"), refused))
PY
    rm -f "$SOCK"
    steps="[[\"start\"],[\"play\",\"$OUT/still.csv\",$((STILL_SECONDS + 15))],[\"connect\",\"$SOCK\",10],"
    steps="$steps[\"wait-sock\",\"\\\"rotation\\\":0\",10],[\"sleep\",5],[\"measure\",$STILL_SECONDS],[\"alive\"]]"
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "zoo/$fixture.umockdev" --actions "$steps" \
        -- "$BIN_DIR/rotationd" --serve --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err" || {
        echo "$fixture: FAILED"; cat "$OUT/run.err"; exit 1; }
    echo "  still: $(grep '^bench:' "$OUT/run.err" | sed 's/^bench: //')"
done
