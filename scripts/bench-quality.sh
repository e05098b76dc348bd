#!/bin/sh
# Replays every shared trace through rotationd (accelerometer only, then fused with the gyroscope), scores
# both with the shared scorer, and prints them beside the peers' published rules: first the well-calibrated
# sensors of ../shared/traces, then the flawed sensors of ../shared/traces-sensors (wrong or missing scale,
# offsets, 6-bit, clipping). Also saved to Docs/bench-quality.txt, only when every replay and every scoring
# run succeeded.
#   SCRATCH  build directory (default .build)
#   TRACES   trace directories, separated by spaces (default ../shared/traces ../shared/traces-sensors)
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCRATCH=${SCRATCH:-.build}
TRACES=${TRACES:-../shared/traces ../shared/traces-sensors}
first=${TRACES%% *}
SCORE=${SCORE:-$(dirname "$first")/eval/score.py}
for d in $TRACES; do
    [ -d "$d" ] || { echo "bench-quality: no trace directory $d; set TRACES=\"DIR ...\"" >&2; exit 2; }
done
[ -f "$SCORE" ] || { echo "bench-quality: no scorer at $SCORE; set SCORE=FILE" >&2; exit 2; }
swift build -c release --scratch-path "$SCRATCH" --product rotationd >&2
BIN="$SCRATCH/release/rotationd"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
report() {
    dir=$1
    out="$TMP/$(basename "$dir")"
    mkdir -p "$out/accel" "$out/fused" "$out/accel-full" "$out/fused-full"
    for f in "$dir"/*.csv; do
        n=$(basename "$f" .csv)
        "$BIN" --replay "$f" --no-gyro > "$out/accel/$n.jsonl"
        "$BIN" --replay "$f" > "$out/fused/$n.jsonl"
        "$BIN" --replay "$f" --no-gyro --full-rate > "$out/accel-full/$n.jsonl"
        "$BIN" --replay "$f" --full-rate > "$out/fused-full/$n.jsonl"
    done
    echo "rotationd $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'), $(ls "$dir"/*.csv | wc -l) traces in $(basename "$(dirname "$dir")")/$(basename "$dir")"
    echo
    python3 "$SCORE" "$dir" --events-dir "$out/accel" --json > "$out/rotationd-accel.json"
    python3 "$SCORE" "$dir" --events-dir "$out/fused" --json > "$out/rotationd-fused.json"
    python3 "$SCORE" "$dir" --events-dir "$out/accel-full" --json > "$out/rotationd-accel-full.json"
    python3 "$SCORE" "$dir" --events-dir "$out/fused-full" --json > "$out/rotationd-fused-full.json"
    for p in isp-poll android rot8 chromeos; do
        python3 "$SCORE" "$dir" --peer "$p" --json > "$out/peer-$p.json"
    done
    python3 - "$out" <<'PY'
import json, sys, os
tmp = sys.argv[1]
rows = [("rotationd (accel only)", "rotationd-accel"), ("rotationd (accel+gyro)", "rotationd-fused"),
        ("  --full-rate, accel", "rotationd-accel-full"), ("  --full-rate, fused", "rotationd-fused-full"),
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
# For flawed sensors, the same counts by flaw, one column per filter.
groups = [("no or wrong scale", ("noscale", "smallscale")), ("uncalibrated (offset, gain)", ("offset",)),
          ("6-bit sensor, clipping sensor", ("coarse", "clipped"))]
data = {f: json.load(open(os.path.join(tmp, f + ".json")))["by_kind"] for _, f in rows}
present = [(name, kinds) for name, kinds in groups if any(k in data["rotationd-accel"] for k in kinds)]
if present:
    cols = [("rotationd accel", "rotationd-accel"), ("rotationd fused", "rotationd-fused"), ("iio-sensor-proxy", "peer-isp-poll"),
            ("rot8", "peer-rot8"), ("android", "peer-android"), ("chromeos", "peer-chromeos")]
    print("missed / spurious by flaw of the sensor:")
    print(f"  {'flaw':<28}" + "".join(f"{c:>18}" for c, _ in cols))
    for name, kinds in present:
        cells = []
        for _, f in cols:
            m = sum(data[f].get(k, {}).get("missed", 0) for k in kinds)
            sp = sum(data[f].get(k, {}).get("spurious", 0) for k in kinds)
            cells.append(f"{m} / {sp}")
        print(f"  {name:<28}" + "".join(f"{c:>18}" for c in cells))
    print()
PY
}

# Written to a file, not through a pipe: under set -e a failing scorer stops the script before the report
# replaces Docs/bench-quality.txt.
{
    for d in $TRACES; do report "$d"; done
    echo "Latency runs from the start of the hold after a move; negative means the change came during the move."
    echo "The rotationd rows replay each trace as the live service reads it (slowly while the device is still);"
    echo "the --full-rate rows feed every sample, for comparison."
} > "$TMP/report.txt"
cat "$TMP/report.txt"
mkdir -p Docs
cp "$TMP/report.txt" Docs/bench-quality.txt
