#!/bin/sh
# Scores rotationd's posture, hinge, rotation and camera directions on the labelled convertible traces
# (../shared/traces-posture) with the shared scorer, then on flawed copies of them (scripts/flawed-copies.py
# KIND posture: offsets, gains and noise on both sensors) for SEEDS seeds. Also saved to Docs/bench-posture.txt,
# only when every run succeeded.
#   BIN     the rotationd to score (default .build/debug/rotationd, built first)
#   TRACES  the labelled traces (default ../shared/traces-posture)
#   SEEDS   the flawed copies' seeds (default "1 2 3 4 5 6 7 8 9 10")
set -e
cd "$(dirname "$0")/.."
TRACES=${TRACES:-../shared/traces-posture}
SCORE=${SCORE:-$(dirname "$TRACES")/eval/posture_score.py}
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
[ -d "$TRACES" ] || { echo "bench-posture: no trace directory $TRACES; set TRACES=DIR" >&2; exit 2; }
[ -f "$SCORE" ] || { echo "bench-posture: no scorer at $SCORE; set SCORE=FILE" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
    swift build --product rotationd >&2
    BIN=.build/debug/rotationd
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
{
    echo "posture on $TRACES:"
    python3 "$SCORE" "$BIN" --traces "$TRACES" | tail -n 1
    for seed in $SEEDS; do
        python3 scripts/flawed-copies.py "$TRACES" "$TMP/$seed" posture "$seed" 2>/dev/null
        printf 'flawed sensors, seed %s: ' "$seed"
        python3 "$SCORE" "$BIN" --traces "$TMP/$seed" | tail -n 1
    done
} >"$TMP/out"
cat "$TMP/out"
cp "$TMP/out" Docs/bench-posture.txt
