#!/bin/sh
# How long a subscriber waits for its first rotation, on each emulated driver of Tests/fixtures/zoo: rotationd
# --serve is started (it samples nothing until a client connects), a client connects at once, as the socket
# unit's first client does, and the time from its hello line to the first state with a rotation is taken (both
# lines' arrival on CLOCK_MONOTONIC). The sensor holds the upright pose of zoo/four-poses.csv throughout.
#
#   scripts/bench-first-answer.sh [RUNS]     (default 3 runs per driver; FIXTURES overrides the list)
#
# Uses the release binary from ROTATIOND_BIN_DIR, else .build/release (built if missing). Output is meant for
# Docs/bench-first-answer.txt.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${1:-3}
BIN_DIR=${ROTATIOND_BIN_DIR:-$ROOT/.build/release}
[ -x "$BIN_DIR/rotationd" ] || make -s binaries >&2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOCK=$OUT/rotationd.sock
python3 scripts/upright-poses.py "$ROOT/Tests/fixtures/zoo/four-poses.csv" "$OUT/still.csv"
ALL="hid-sensor hid-sensor-hysteresis bmc150-dual kxcjk-1013 mxc4005 mxc4005-noirq st_accel cros-ec cros-ec-location
inv_mpu6050 bmi323 st_lsm6dsx st_lsm6dsx-noirq mma8452"

echo "first rotation after connecting, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores, $RUNS runs per driver"
echo "binary: rotationd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $BIN_DIR/rotationd --serve --socket SOCK"
echo "from the hello line's arrival to the first state with a rotation; the sensor held upright; mode and inputs as logged"
echo
for fixture in ${FIXTURES:-$ALL}; do
    times=""
    for run in $(seq "$RUNS"); do
        rm -f "$SOCK" "$OUT/socket.txt"
        steps="[[\"play\",\"$OUT/still.csv\",60],[\"start\"],[\"connect\",\"$SOCK\",10],"
        steps="$steps[\"wait-sock\",\"\\\"rotation\\\":0,\",10],[\"save-sock\",\"$OUT/socket.txt\"],[\"stop\"]]"
        umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "zoo/$fixture.umockdev" --actions "$steps" \
            -- "$BIN_DIR/rotationd" --serve --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err" || {
            echo "$fixture: FAILED"; cat "$OUT/run.err"; exit 1; }
        t=$(python3 - "$OUT/socket.txt" <<'PY'
import json, sys
hello = first = None
inputs = "?"
for line in open(sys.argv[1]):
    when, text = line.split(" ", 1)
    msg = json.loads(text)
    if msg.get("type") == "hello" and hello is None:
        hello = float(when)
    if msg.get("type") == "state" and msg.get("rotation") is not None and first is None:
        first, inputs = float(when), msg.get("inputs", "?")
print("%.0f:%s" % ((first - hello) * 1000, inputs))
PY
)
        times="$times $t"
    done
    mode=$(grep -o 'as the display accelerometer, [a-z]*' "$OUT/run.err" | head -1 | sed 's/.*, //')
    warned=$(grep -c '^rotationd: warning' "$OUT/run.err" || true)
    python3 - "$fixture ($mode)" "$warned" $times <<'PY'
import sys
label, warned, runs = sys.argv[1], sys.argv[2], [r.split(":") for r in sys.argv[3:]]
ms = sorted(float(r[0]) for r in runs)
print("%-28s median %4.0f ms, max %4.0f ms  (%s; first state's inputs %s; warnings %s)"
      % (label, ms[len(ms) // 2], ms[-1], " ".join("%.0f" % float(r[0]) for r in runs),
         "/".join(sorted({r[1] for r in runs})), warned))
PY
done
