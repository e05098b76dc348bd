#!/bin/sh
# Draws the pictures Docs/algorithm.md and Docs/posture.md show, with rotationd --replay --picture, from stretches
# of the shared traces and the bundled fold trace:
#   scripts/doc-pictures.sh [ROTATIOND]      (default .build/debug/rotationd)
#   Docs/pictures/turns.svg   ../shared/traces/rotations-50hz-1.csv, 0 to 7 s: the first decision and two quarter turns
#   Docs/pictures/flicks.svg  ../shared/traces/flick-50hz-1.csv, 0 to 6.6 s: two flicks, each let through or not
#   Docs/pictures/fold.svg    data/demo-fold-50hz.csv: a convertible opened, folded back into a tablet and opened again
#   TRACES  the shared trace directory (default ../shared/traces)
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-.build/debug/rotationd}
TRACES=${TRACES:-../shared/traces}
[ -x "$BIN" ] || { echo "doc-pictures: $BIN is not an executable; build it or name it" >&2; exit 2; }
[ -d "$TRACES" ] || { echo "doc-pictures: no trace directory $TRACES; set TRACES" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The header and the samples from FROM to TO seconds, their times kept.
stretch() { # TRACE FROM TO OUT
    awk -F, -v from="$2" -v to="$3" 'NR == 1 || ($1 >= from && $1 < to)' "$1" > "$4"
}
draw() { # TRACE SVG WHAT
    "$BIN" --replay "$1" --picture "$2" > /dev/null
    echo "doc-pictures: $2 ($(wc -c < "$2") bytes) from $3"
}
stretch "$TRACES/rotations-50hz-1.csv" 0 7 "$work/rotations-50hz-1-0-7s.csv"
draw "$work/rotations-50hz-1-0-7s.csv" Docs/pictures/turns.svg "$TRACES/rotations-50hz-1.csv, 0 to 7 s"
stretch "$TRACES/flick-50hz-1.csv" 0 6.6 "$work/flick-50hz-1-0-6.6s.csv"
draw "$work/flick-50hz-1-0-6.6s.csv" Docs/pictures/flicks.svg "$TRACES/flick-50hz-1.csv, 0 to 6.6 s"
draw data/demo-fold-50hz.csv Docs/pictures/fold.svg data/demo-fold-50hz.csv
