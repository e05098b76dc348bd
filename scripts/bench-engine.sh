#!/bin/sh
# Speed of the engine alone (engine-bench, in process, one core) and the wall time of `rotationd --replay`
# over every shared trace. Also saved to Docs/bench-engine.txt, only when every run succeeded.
#   SCRATCH  build directory (default .build)     TRACES  trace directory (default ../shared/traces)
set -e
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
TRACES=${TRACES:-../shared/traces}
swift build -c release --scratch-path "$SCRATCH" --product engine-bench >&2
swift build -c release --scratch-path "$SCRATCH" --product rotationd >&2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
{
    echo "engine-bench (release, one core):"
    "$SCRATCH/release/engine-bench" --seconds 2 > "$TMP/engine.txt"
    sed 's/^/  /' "$TMP/engine.txt"
    if [ -d "$TRACES" ]; then
        n=$(ls "$TRACES"/*.csv | wc -l)
        lines=$(cat "$TRACES"/*.csv | wc -l)
        for mode in "--no-gyro" ""; do
            start=$(date +%s.%N)
            for f in "$TRACES"/*.csv; do "$SCRATCH/release/rotationd" --replay "$f" $mode > /dev/null; done
            end=$(date +%s.%N)
            label=${mode:-"(fused)"}
            echo "rotationd --replay $label over $n traces ($((lines - n)) samples): $(echo "$end - $start" | awk '{printf "%.3f", $1 - $3}') s wall, parsing and JSON output included"
        done
    else
        echo "no trace directory $TRACES; set TRACES=DIR to time rotationd --replay"
    fi
} > "$TMP/report.txt"
cat "$TMP/report.txt"
mkdir -p Docs
cp "$TMP/report.txt" Docs/bench-engine.txt
