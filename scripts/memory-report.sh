#!/bin/sh
# Where the release rotationd's resident memory goes while it serves one subscriber from a polled
# accelerometer, and what rotwatch and follow-rotation (the smallest RotationClient program) hold while they
# follow it. Also saved to Docs/bench-memory.txt.
#
# rotationd --serve runs under umockdev with Tests/fixtures/bench-polled.umockdev playing the live bench's
# still trace (scripts/make-still-trace.py) at 50 Hz; the driver subscribes, waits for the first rotation and
# then SETTLE seconds, and scripts/resident-pages.py reads rotationd's page table: resident kB per mapping,
# and for rotationd itself per section, per origin of the symbols and the symbols with the most resident
# bytes. Then rotwatch and follow-rotation, outside the testbed, each follow the same rotationd until they
# have printed a state, and after 5 s more their mappings are read the same way.
#
#   scripts/memory-report.sh [SETTLE]   (default 20)
#   BEFORE=DIR   also measure DIR/rotationd and DIR/rotwatch (an earlier release build) first, and end with
#                a comparison per mapping
# Uses the release build of `make binaries` (built here when needed), or ROTATIOND_BIN_DIR when set.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# Inside the driver's "run" step: measure each client in BIN_DIR that exists while it follows SOCK.
if [ "$1" = --clients ]; then
    sock=$2 bin=$3 out=$4 tag=$5
    for c in rotwatch follow-rotation; do
        [ -x "$bin/$c" ] || continue
        if [ $c = rotwatch ]; then "$bin/$c" --socket "$sock" >"$out/$c.out" 2>&1 &
        else "$bin/$c" "$sock" >"$out/$c.out" 2>&1 & fi
        pid=$!
        n=0
        until grep -q -E '(°|^[0-9]+$)' "$out/$c.out" 2>/dev/null; do
            n=$((n + 1))
            [ $n -lt 100 ] || { echo "memory-report: $c printed no state in 10 s" >&2; kill "$pid"; exit 1; }
            sleep 0.1
        done
        sleep 5
        echo
        /usr/bin/python3 "$ROOT/scripts/resident-pages.py" "$pid" --brief --label "$c" --save "$out/$tag-$c.json"
        kill -TERM "$pid"
        wait "$pid" || true
    done
    exit 0
fi

SETTLE=${1:-20}
if [ -n "$ROTATIOND_BIN_DIR" ]; then BIN_DIR=$ROTATIOND_BIN_DIR; else make -s binaries >&2; BIN_DIR=$ROOT/.build/release; fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
python3 scripts/make-still-trace.py "$OUT/still.csv"
SOCK=$OUT/rotationd.sock

# measure TAG DIR LABEL: the report for DIR's binaries; the per-mapping figures go to $OUT/TAG-*.json.
measure() {
    tag=$1 bin=$2 label=$3
    if readelf -d "$bin/rotationd" | grep -q 'NEEDED.*libswiftCore'; then
        echo "memory-report: $bin/rotationd is not a static release build (it needs libswiftCore.so)" >&2; exit 2
    fi
    echo "== $label: $bin/rotationd ($(du -k "$bin/rotationd" | cut -f1) KiB)"
    if grep -q -v '^#' data/hot-functions.txt 2>/dev/null; then
        python3 - "$bin/rotationd" data/hot-functions.txt <<'PY'
import subprocess, sys
present = set(subprocess.run(["nm", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout.split())
listed = [l.strip() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
print("   it has %d of the %d functions in data/hot-functions.txt (rotationd's, rotwatch's and follow-rotation's)" % (sum(n in present for n in listed), len(listed)))
PY
    fi
    echo
    steps="[[\"start\"],[\"feed-trace\",\"attr:iio:device0\",\"$OUT/still.csv\",0.01,50,$((SETTLE + 60)),5],"
    steps="$steps[\"connect\",\"$SOCK\",10],[\"wait-sock\",\"\\\"rotation\\\":[0-9]\",10],[\"sleep\",$SETTLE],"
    steps="$steps[\"run\",[\"/usr/bin/python3\",\"$ROOT/scripts/resident-pages.py\",\"--pid-env\",\"--label\",\"rotationd\",\"--save\",\"$OUT/$tag-rotationd.json\"]],"
    steps="$steps[\"run\",[\"sh\",\"$ROOT/scripts/memory-report.sh\",\"--clients\",\"$SOCK\",\"$bin\",\"$OUT\",\"$tag\"]],[\"alive\"]]"
    rm -f "$SOCK"
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device bench-polled.umockdev --actions "$steps" \
        -- "$bin/rotationd" --serve --socket "$SOCK" --rate 50 >"$OUT/run.out" 2>"$OUT/run.err" || {
        echo "memory-report: the $tag run failed:" >&2; cat "$OUT/run.err" >&2; exit 1; }
    grep -v '^socket 1: ' "$OUT/run.out"
    echo
}

{
    echo "rotationd resident memory, $(date -u +%Y-%m-%d), $(uname -m), Linux $(uname -r), $(nproc) cores"
    echo "rotationd --serve --rate 50 under umockdev-run (its LD_PRELOAD library is counted: libumockdev-preload),"
    echo "one subscriber, a polled accelerometer playing the still trace; read ${SETTLE} s after the first rotation."
    echo "Resident: present in the page table (/proc/PID/pagemap), file pages mapped around faults included."
    echo
    [ -z "$BEFORE" ] || measure before "$BEFORE" before
    measure after "$BIN_DIR" "rotationd $(git describe --always --dirty 2>/dev/null || echo '?')"
    if [ -n "$BEFORE" ]; then
        python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def load(tag, prog):
    path = glob.glob(os.path.join(out, "%s-%s.json" % (tag, prog)))
    return json.load(open(path[0])) if path else None
after_tag = "after"
print("== before and after, resident kB per mapping (mappings of 40 kB or more in either)")
for prog in ("rotationd", "rotwatch", "follow-rotation"):
    b, a = load("before", prog), load(after_tag, prog)
    if not a:
        continue
    if not b:
        print("%s: %d kB (nothing to compare with)" % (prog, a["total"]))
        continue
    print("%s: %d kB before, %d kB after (%+d kB)" % (prog, b["total"], a["total"], a["total"] - b["total"]))
    names = sorted(set(b["mappings"]) | set(a["mappings"]), key=lambda n: -max(b["mappings"].get(n, 0), a["mappings"].get(n, 0)))
    for n in names:
        x, y = b["mappings"].get(n, 0), a["mappings"].get(n, 0)
        if max(x, y) >= 40:
            print("  %7d %7d %+7d  %s" % (x, y, y - x, n))
PY
    fi
} > "$OUT/report.txt"
cat "$OUT/report.txt"
cp "$OUT/report.txt" Docs/bench-memory.txt
