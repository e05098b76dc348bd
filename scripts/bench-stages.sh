#!/bin/sh
# Where a turn's latency goes, stage by stage, on emulated real drivers (Tests/fixtures/zoo): from the end of the
# move to the change's line at a subscriber of rotationd --serve.
#
#   scripts/bench-stages.sh [LOOPS]      (default 2: eight quarter turns per driver; FIXTURES= picks drivers)
#
# Tests/fixtures/zoo/four-poses.csv is played LOOPS times (quarter turns of 0.6 s, each pose held 3 s, so every
# turn starts while rotationd reads the sensor at its still pace). rotationd runs with --verbose, which logs, for
# each change, when the sample that decided it passed each stage (DeliveryTiming, the socket server's write);
# the subscriber stamps the line's arrival. For each turn:
#
#   settle   end of the move -> the deciding sample was measured (its buffer timestamp, or when its raw read was
#            due): the engine's own wait for the device to come to rest, the sampling interval, and the
#            emulated sensor's lag between the trace and what a read or a scan returns
#   batch    measured -> readable: the sample waits for the last scan of its batch (buffered sensors only)
#   wake     readable -> the sensor thread woke: poll()'s or the timer's lateness (for a buffered sensor, beyond the
#            smallest delay seen between a scan's timestamp and its read, which maps the sensor's clock)
#   read     woke -> the read returned: the buffer's read, or the raw attributes (the driver's time)
#   decode   read -> handed to the engine (a buffered sample may wait here for the gyroscope's covering batch)
#   engine   handed over -> decided and published to the outputs
#   publish  decided -> written to the socket (the server thread's hand-off and write)
#   socket   written -> read by the subscriber (a Python thread of the test bed)
#
# The total is the sum. Uses the release binary from ROTATIOND_BIN_DIR, else .build/release (built if missing).
# Output is meant for Docs/bench-stages.txt.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LOOPS=${1:-2}
BIN_DIR=${ROTATIOND_BIN_DIR:-$ROOT/.build/release}
[ -x "$BIN_DIR/rotationd" ] || make -s binaries >&2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SOCK=$OUT/rotationd.sock
POSES=$ROOT/Tests/fixtures/zoo/four-poses.csv
PERIOD=$(python3 -c "
rows = [l.split(',') for l in open('$POSES').read().splitlines()[1:]]
print(float(rows[-1][0]) + float(rows[1][0]) - float(rows[0][0]))")
# The engine alone on the trace (every sample, as recorded): when it decides each turn, from the move's end.
for mode in fused accel; do
    flag=$([ $mode = accel ] && echo --no-gyro || true)
    "$BIN_DIR/rotationd" --replay "$POSES" --full-rate $flag 2>/dev/null >"$OUT/replay-$mode.jsonl"
done

echo "rotationd's live path stage by stage, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores"
echo "binary: rotationd $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $BIN_DIR/rotationd --serve --verbose"
echo "turns: four-poses.csv played $LOOPS times ($((LOOPS * 4)) quarter turns of 0.6 s, each after a 3-s still spell);"
echo "  ms from the end of the move, p50 / p95 over the turns per stage (stages: see scripts/bench-stages.sh)"
python3 - "$OUT" <<'PY'
import json, sys
for mode in ("fused", "accel"):
    last, out = None, []
    for line in open("%s/replay-%s.jsonl" % (sys.argv[1], mode)):
        m = json.loads(line)
        if m.get("rotation") is not None and m["rotation"] != last and last is not None:
            out.append("%+.0f" % ((m["t"] - {90: 3.6, 180: 7.2, 270: 10.8, 0: 14.4}[m["rotation"]]) * 1000))
        last = m.get("rotation")
    print("engine alone on the trace (%s, every sample): decides %s ms from each move's end" % (mode, ", ".join(out)))
PY
echo

for fixture in ${FIXTURES:-hid-sensor hid-sensor-hysteresis bmc150-dual kxcjk-1013 mxc4005 mxc4005-noirq st_accel cros-ec inv_mpu6050 bmi323 st_lsm6dsx mma8452}; do
    rm -f "$SOCK"
    seconds=$(python3 -c "print(int($PERIOD * $LOOPS + 3))")
    steps="[[\"start\"],[\"play\",\"zoo/four-poses.csv\",$seconds],[\"connect\",\"$SOCK\",10],"
    steps="$steps[\"sleep\",$((seconds - 1))],[\"save-sock\",\"$OUT/socket.txt\"],[\"alive\"]]"
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "zoo/$fixture.umockdev" --actions "$steps" \
        -- "$BIN_DIR/rotationd" --serve --verbose --socket "$SOCK" >"$OUT/run.out" 2>"$OUT/run.err" || {
        echo "$fixture: FAILED"; cat "$OUT/run.err"; exit 1; }
    mode=$(grep -o 'as the display accelerometer, [a-z]*' "$OUT/run.err" | head -1 | sed 's/.*, //')
    python3 - "$OUT/run.err" "$OUT/socket.txt" "$PERIOD" "$fixture ($mode)" <<'PY'
import json, re, sys
err, socket, period, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
log = open(err).read()
start = float(re.search(r"play: started at ([0-9.]+)", log).group(1))
stages = {}
for m in re.finditer(r"stages of change (\d+): (.*)", log):
    fields = stages.setdefault(int(m.group(1)), {})
    for name, value in re.findall(r"([a-z ]+?) (-?\d+)(?:,|$| to)", m.group(2)):
        fields[name.strip()] = int(value) / 1e6
arrivals, last = [], None
for line in open(socket):
    when, text = line.split(" ", 1)
    msg = json.loads(text)
    if msg.get("type") == "state" and msg.get("rotation") is not None and msg["rotation"] != last:
        arrivals.append((float(when), msg["rotation"], msg["seq"]))
        last = msg["rotation"]
ends = [(start + k * period + e, r) for k in range(20) for e, r in ((3.6, 90), (7.2, 180), (10.8, 270), (14.4, 0))]
names = ["settle", "batch", "wake", "read", "decode", "engine", "publish", "socket", "total"]
rows, missed = [], 0
horizon = arrivals[-1][0] if arrivals else 0
for end, rotation in ends:
    if end > horizon + 1:
        break
    hit = next(((t, seq) for t, r, seq in arrivals if r == rotation and end - 0.6 <= t <= end + 2), None)
    s = stages.get(hit[1]) if hit else None
    if not s or "written" not in s:
        missed += 1
        continue
    points = [end, s["measured"], s["readable"], s["woke"], s["read"], s["delivered"], s["decided"], s["written"], hit[0]]
    rows.append([(b - a) * 1000 for a, b in zip(points, points[1:])] + [(hit[0] - end) * 1000])
def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]
print("%s: %d turns%s" % (label, len(rows), ", %d without a change or its stages" % missed if missed else ""))
if rows:
    print("  " + " ".join("%15s" % n for n in names))
    print("  " + " ".join("%15s" % ("%+.1f / %+.1f" % (pct(c, 0.5), pct(c, 0.95))) for c in zip(*rows)))
    print("  each turn (settle + the rest = total): " + ", ".join("%+.0f%+.0f=%+.0f" % (r[0], r[-1] - r[0], r[-1]) for r in rows))
PY
done
