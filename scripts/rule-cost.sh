#!/bin/sh
# What each decision rule costs and what it buys: replays the shared sets with one rule switched off at a time
# (ROTATIOND_DISABLE_RULES, which only `rotationd --replay` reads) and scores them with the shared scorer beside
# the run with every rule on. Sets: ../shared/traces, ../shared/traces-sensors, and offset copies of
# ../shared/traces (scripts/flawed-copies.py, one per seed, pooled), each with the accelerometer alone and with
# the gyroscope; and copies of both shared sets whose gyroscope reads 1000 times too much or too little, with the
# gyroscope. All at the sampling policy's pace. Below the table, the traces whose missed or spurious count
# changes with each rule off, and where the rule costs most latency. Saved to Docs/bench-rule-cost.txt when every
# replay and scoring run succeeded.
#   SCRATCH  build directory (default .build); BIN a rotationd to use instead of building one
#   SEEDS    offset seeds (default 1 to 5)
#   RULES    the rules to switch off (default every rule, as `rotationd --replay` lists them on a bad name)
#   JOBS     replays run side by side (default 2)
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCRATCH=${SCRATCH:-.build}
SEEDS=${SEEDS:-1 2 3 4 5}
JOBS=${JOBS:-2}
TRACES="../shared/traces ../shared/traces-sensors"
SCORE=../shared/eval/score.py
for d in $TRACES; do [ -d "$d" ] || { echo "rule-cost: no trace directory $d" >&2; exit 2; }; done
[ -f "$SCORE" ] || { echo "rule-cost: no scorer at $SCORE" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product rotationd >&2
    BIN="$SCRATCH/release/rotationd"
fi
BIN=$(realpath "$BIN")
if [ -z "${RULES:-}" ]; then
    # A name that is no rule makes the replay list them all.
    RULES=$(ROTATIOND_DISABLE_RULES=? "$BIN" --replay ../shared/traces/"$(ls ../shared/traces | grep -m1 '\.csv$')" 2>&1 >/dev/null |
            sed -n 's/.*rules: //p' | tr -d ',')
    [ -n "$RULES" ] || { echo "rule-cost: $BIN did not list its rules" >&2; exit 2; }
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# SET:DIRECTORY:VARIANTS, the variants separated by commas.
sets="traces:../shared/traces:accel,fused traces-sensors:../shared/traces-sensors:accel,fused"
for s in $SEEDS; do
    python3 scripts/flawed-copies.py ../shared/traces "$TMP/copies/offset-$s" offset "$s" 2>/dev/null
    sets="$sets offset:$TMP/copies/offset-$s:accel,fused"
done
for d in $TRACES; do
    for k in gyro1000 gyro0.001; do
        python3 scripts/flawed-copies.py "$d" "$TMP/copies/$(basename "$d")-$k" "$k" 2>/dev/null
        sets="$sets $k:$TMP/copies/$(basename "$d")-$k:fused"
    done
done
for rule in all-on $RULES; do
    for entry in $sets; do
        set=${entry%%:*} rest=${entry#*:}
        dir=${rest%:*} variants=${rest##*:}
        for f in "$dir"/*.csv; do
            echo "$rule $set $(basename "$dir") $f $variants"
        done
    done
done > "$TMP/jobs"
export BIN TMP
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 sh -c '
    rule=$1 part=$3 f=$4
    [ "$rule" = all-on ] && off= || off=$rule
    n=$(basename "$f" .csv)
    for v in $(echo "$5" | tr , " "); do
        out=$TMP/out/$rule/$part/$v
        mkdir -p "$out"
        [ $v = accel ] && flag=--no-gyro || flag=
        # A replay says on standard error when it finds the gyroscope wrong; kept beside its output.
        ROTATIOND_DISABLE_RULES=$off "$BIN" --replay "$f" $flag > "$out/$n.jsonl" 2> "$out/$n.err" ||
            { echo "rule-cost: replay of $f failed: $(cat "$out/$n.err")" >&2; exit 255; }
    done
' sh < "$TMP/jobs"

python3 - "$TMP" "$SCORE" "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')" "$SEEDS" all-on $RULES \
    > "$TMP/report.txt" <<'PY'
import glob, importlib.util, json, os, sys
tmp, scorer, version, seeds, rules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]
spec = importlib.util.spec_from_file_location("score", scorer)
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)
parts = {"traces": [("traces", "../shared/traces")], "traces-sensors": [("traces-sensors", "../shared/traces-sensors")],
         "offset": [(f"offset-{s}", os.path.join(tmp, "copies", f"offset-{s}")) for s in seeds]}
for k in ("gyro1000", "gyro0.001"):
    parts[k] = [(f"{d}-{k}", os.path.join(tmp, "copies", f"{d}-{k}")) for d in ("traces", "traces-sensors")]
variants = {name: ("fused",) if name.startswith("gyro") else ("accel", "fused") for name in parts}

def run(rule, set_name, variant):
    """Per trace results for one rule off, one set and one variant."""
    results = {}
    for part, src in parts[set_name]:
        for csv in sorted(glob.glob(os.path.join(src, "*.csv"))):
            name = os.path.basename(csv)[:-4]
            labels = json.load(open(csv[:-4] + ".labels.json"))
            events = score.read_events(os.path.join(tmp, "out", rule, part, variant, name + ".jsonl"))
            results[f"{part}/{name}"] = score.score(labels, events)
    return results

counts = {}
print(f"rotationd {version}: each decision rule switched off in turn (ROTATIOND_DISABLE_RULES), replayed at the")
print(f"sampling policy's pace; offset = copies of ../shared/traces with offsets and gain errors, seeds {' '.join(seeds)},")
print("pooled; gyro1000, gyro0.001 = copies of both shared sets whose gyroscope reads 1000 times too much, too little,")
print("pooled, replayed with it. Latency in ms from the start of the hold after a move.")
print()
head = f"{'rule off':<34}{'set':<16}{'accel only: missed':>19}{'spurious':>9}{'p50':>6}{'p95':>6}{'fused: missed':>15}{'spurious':>9}{'p50':>6}{'p95':>6}"
print(head)
print("-" * len(head))
for rule in rules:
    for set_name in parts:
        cells = {}
        for variant in variants[set_name]:
            r = run(rule, set_name, variant)
            counts[(rule, set_name, variant)] = r
            s = score.summarize(r)
            cells[variant] = (s["missed"], s["spurious"], s["lat_p50_ms"], s["lat_p95_ms"])
        a, f = cells.get("accel"), cells["fused"]
        accel = f"{a[0]:>19}{a[1]:>9}{a[2]:>6}{a[3]:>6}" if a else f"{'-':>19}{'':>21}"
        label = "(none: every rule on)" if rule == "all-on" else rule
        print(f"{label:<34}{set_name:<16}{accel}{f[0]:>15}{f[1]:>9}{f[2]:>6}{f[3]:>6}")
print()
print("With each rule off, the traces whose missed or spurious count changes (every rule on -> rule off), and")
print("the three whose slowest change, published after its hold began, comes soonest without it (the latency the")
print("rule costs there):")
for rule in rules[1:]:
    changed, faster = [], []
    for set_name in parts:
        for variant in variants[set_name]:
            base, off = counts[("all-on", set_name, variant)], counts[(rule, set_name, variant)]
            for name in base:
                b, o = base[name], off[name]
                if (b["missed"], b["spurious"]) != (o["missed"], o["spurious"]):
                    changed.append(f"{name} ({variant}) missed {b['missed']}->{o['missed']}, spurious {b['spurious']}->{o['spurious']}")
                elif b["latencies"] and o["latencies"]:
                    on, without = round(1000 * max(b["latencies"])), round(1000 * max(o["latencies"]))
                    if 0 < on and without < on:
                        faster.append((on - without, f"{name} ({variant}) slowest {on} -> {without} ms"))
    print(f"  {rule}: {len(changed) if changed else 'no'} count changed")
    for c in changed[:6]:
        print(f"    {c}")
    if len(changed) > 6:
        print(f"    ... and {len(changed) - 6} more")
    for _, text in sorted(faster, key=lambda x: -x[0])[:3]:
        print(f"    {text}")
PY
cat "$TMP/report.txt"
cp "$TMP/report.txt" Docs/bench-rule-cost.txt
