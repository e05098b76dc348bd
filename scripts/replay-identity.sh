#!/bin/sh
# Replays every shared trace through two rotationd binaries and compares what they print, byte for byte: the
# proof that a change to the engine changed no decision, or the list of the replays it did change.
#   scripts/replay-identity.sh OLD_BIN NEW_BIN
# Sets: ../shared/traces and ../shared/traces-sensors in four variants (the policy's pace and --full-rate, each
# with and without the gyroscope); offset copies of ../shared/traces (scripts/flawed-copies.py, one set per
# seed) in the same four variants; copies of both shared sets with the gyroscope read 1000 times too much and
# too little, with the gyroscope, at both paces. Prints the files compared and the differing ones, with the
# first lines of difference of a few; exits 1 on any difference, 2 on a failed replay or bad arguments.
#   SEEDS   offset seeds (default 1 to 5)
#   JOBS    replays run side by side (default 2)
#   SHOW    differing files whose diff is printed (default 5)
#   KEEP    a directory to keep both outputs in (default: removed at the end)
#   TRACES  the shared trace directories (default ../shared/traces ../shared/traces-sensors); the first is the
#           one the offset copies are made of
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/replay-identity.sh OLD_BIN NEW_BIN" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "replay-identity: $b is not an executable" >&2; exit 2; }; done
SEEDS=${SEEDS:-1 2 3 4 5}
JOBS=${JOBS:-2}
SHOW=${SHOW:-5}
TRACES=${TRACES:-../shared/traces ../shared/traces-sensors}
for d in $TRACES; do [ -d "$d" ] || { echo "replay-identity: no trace directory $d; set TRACES" >&2; exit 2; }; done
if [ -n "${KEEP:-}" ]; then
    WORK=$KEEP
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi
first=${TRACES%% *}

# The flawed copies, made afresh: they are cheap and must match the script that makes them.
mkdir -p "$WORK/copies"
for s in $SEEDS; do
    python3 scripts/flawed-copies.py "$first" "$WORK/copies/offset-$s" offset "$s" 2>/dev/null
done
for d in $TRACES; do
    for k in gyro1000 gyro0.001; do
        python3 scripts/flawed-copies.py "$d" "$WORK/copies/$(basename "$d")-$k" "$k" 2>/dev/null
    done
done

# One job a line: set, variant, trace, then the variant's flags.
jobs=$WORK/jobs
: > "$jobs"
add() { # DIR SET VARIANTS...
    dir=$1 set=$2
    shift 2
    for f in "$dir"/*.csv; do
        for v in "$@"; do
            case $v in
                default) flags= ;;
                no-gyro) flags=--no-gyro ;;
                full-rate) flags=--full-rate ;;
                no-gyro-full-rate) flags="--no-gyro --full-rate" ;;
            esac
            # No trailing blank: xargs -L would join the next line to this one.
            echo "$set $v $f${flags:+ $flags}" >> "$jobs"
        done
    done
}
all="default no-gyro full-rate no-gyro-full-rate"
for d in $TRACES; do
    # shellcheck disable=SC2086
    add "$d" "$(basename "$d")" $all
    add "$WORK/copies/$(basename "$d")-gyro1000" "$(basename "$d")-gyro1000" default full-rate
    add "$WORK/copies/$(basename "$d")-gyro0.001" "$(basename "$d")-gyro0.001" default full-rate
done
for s in $SEEDS; do
    # shellcheck disable=SC2086
    add "$WORK/copies/offset-$s" "offset-$s" $all
done

# The old binary's outputs are kept in .build/replay-identity, by the binary's checksum and the job list's: a
# series of changes compared with one reference replays only the new binary each time.
key=$( (cat "$OLD" scripts/flawed-copies.py; sed "s|$WORK|WORK|" "$jobs") | sha256sum | cut -c1-16)
cache=.build/replay-identity/$key
sides="old new"
if [ -f "$cache/complete" ]; then
    sides=new
    mkdir -p "$WORK/old"
    cp -R "$cache/." "$WORK/old/"
    rm -f "$WORK/old/complete"
fi

# Each job replays one trace through the binaries: standard output and standard error, each in a file, and
# the exit status at the end of the error file.
export OLD NEW WORK sides
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 sh -c '
    set=$1 v=$2 f=$3
    shift 3
    n=$(basename "$f" .csv)
    for side in $sides; do
        [ $side = old ] && bin=$OLD || bin=$NEW
        out=$WORK/$side/$set/$v
        mkdir -p "$out"
        "$bin" --replay "$f" "$@" > "$out/$n.jsonl" 2> "$out/$n.err" || echo "exit status $?" >> "$out/$n.err"
    done
' sh < "$jobs"
if [ "$sides" != new ] && ! grep -rqs "^exit status" "$WORK/old"; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cp -R "$WORK/old/." "$cache/"
    touch "$cache/complete"
fi

compared=$(find "$WORK/old" -type f | wc -l)
failed=$(grep -rl "^exit status" "$WORK/old" "$WORK/new" || true)
differ=$(cd "$WORK/old" && find . -type f | sort | while read -r f; do cmp -s "$f" "$WORK/new/$f" || echo "${f#./}"; done)
ndiffer=$(printf '%s' "$differ" | grep -c . || true)
echo "replay-identity: $(wc -l < "$jobs") replays per binary, $compared files compared (standard output and error), $ndiffer differ"
echo "  old: $OLD"
echo "  new: $NEW"
if [ -n "$differ" ]; then
    echo "$differ" | head -n 50 | sed 's/^/  differs: /'
    [ "$ndiffer" -le 50 ] || echo "  ... and $((ndiffer - 50)) more"
    echo "$differ" | head -n "$SHOW" | while read -r f; do
        echo "---- $f"
        diff "$WORK/old/$f" "$WORK/new/$f" | head -n 20 || true
    done
fi
if [ -n "$failed" ]; then
    echo "replay-identity: $(echo "$failed" | wc -l) replays failed, such as:" >&2
    echo "$failed" | head -n 5 | sed "s|^$WORK/|  |" >&2
    exit 2
fi
[ -z "$differ" ]
