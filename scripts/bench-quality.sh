#!/bin/sh
# Replays every shared trace through rotationd (accelerometer only, then fused with the gyroscope), scores
# both with the shared scorer, and prints them beside the peers' published rules. Also saved to
# Docs/bench-quality.txt, only when every replay and every scoring run succeeded.
#   SCRATCH  build directory (default .build)     TRACES  trace directory (default ../shared/traces)
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCRATCH=${SCRATCH:-.build}
TRACES=${TRACES:-../shared/traces}
SCORE=${SCORE:-$(dirname "$TRACES")/eval/score.py}
[ -d "$TRACES" ] || { echo "bench-quality: no trace directory $TRACES; set TRACES=DIR" >&2; exit 2; }
[ -f "$SCORE" ] || { echo "bench-quality: no scorer at $SCORE; set SCORE=FILE" >&2; exit 2; }
swift build -c release --scratch-path "$SCRATCH" --product rotationd >&2
BIN="$SCRATCH/release/rotationd"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/accel" "$TMP/fused"
for f in "$TRACES"/*.csv; do
    n=$(basename "$f" .csv)
    "$BIN" --replay "$f" --no-gyro > "$TMP/accel/$n.jsonl"
    "$BIN" --replay "$f" > "$TMP/fused/$n.jsonl"
done
# Written to a file, not through a pipe: under set -e a failing scorer stops the script before the report
# replaces Docs/bench-quality.txt.
{
    echo "rotationd $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'), $(ls "$TRACES"/*.csv | wc -l) traces in $(basename "$(dirname "$TRACES")")/$(basename "$TRACES")"
    echo
    python3 "$SCORE" "$TRACES" --events-dir "$TMP/accel" --json > "$TMP/rotationd-accel.json"
    python3 "$SCORE" "$TRACES" --events-dir "$TMP/fused" --json > "$TMP/rotationd-fused.json"
    for p in isp-poll android rot8 chromeos; do
        python3 "$SCORE" "$TRACES" --peer "$p" --json > "$TMP/peer-$p.json"
    done
    python3 - "$TMP" <<'PY'
import json, sys, os
tmp = sys.argv[1]
rows = [("rotationd (accel only)", "rotationd-accel"), ("rotationd (accel+gyro)", "rotationd-fused"),
        ("iio-sensor-proxy poll", "peer-isp-poll"), ("android", "peer-android"), ("rot8", "peer-rot8"),
        ("chromeos", "peer-chromeos")]
head = f"{'filter':<24}{'rotations':>10}{'missed':>8}{'spurious':>10}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'accuracy %':>12}"
print(head)
print("-" * len(head))
for label, f in rows:
    s = json.load(open(os.path.join(tmp, f + ".json")))
    print(f"{label:<24}{s['rotations']:>10}{s['missed']:>8}{s['spurious']:>10}{s['lat_p50_ms']:>8}{s['lat_p95_ms']:>8}"
          f"{str(s['lat_max_ms']):>8}{str(s['accuracy']):>12}")
print()
print("spurious/missed by scenario:")
for label, f in rows:
    s = json.load(open(os.path.join(tmp, f + ".json")))
    kinds = " ".join(f"{k}:{v['spurious']}/{v['missed']}" for k, v in sorted(s["by_kind"].items()))
    print(f"  {label:<24}{kinds}")
print()
print("Latency runs from the start of the hold after a move; negative means the change came during the move.")
PY
} > "$TMP/report.txt"
cat "$TMP/report.txt"
mkdir -p Docs
cp "$TMP/report.txt" Docs/bench-quality.txt
