#!/bin/sh
# Lists the functions the release binaries run, for the linker to lay them out together (Makefile, RELEASE):
# writes data/hot-functions.txt. A function in the list is placed at the start of .text, so the code a
# serving rotationd runs fills a few dozen pages instead of being spread over its 4 MB of code, each page of
# it drawing its neighbours in (the kernel maps up to 64 KiB of cached file pages around each fault).
#
# Runs, under valgrind's callgrind (which records every function that runs at least once):
#   rotationd --serve under umockdev, with one subscriber, a polled and then a buffered accelerometer playing
#     the live bench's still trace, from start to SIGTERM;
#   rotwatch and follow-rotation, each following that rotationd until it has printed a state.
# The list is rotationd's functions, then those only the clients run. Names the build no longer has are
# ignored by the linker; rerun this after changes to code on these paths (scripts/memory-report.sh prints how
# many listed functions the binary still has).
#
#   scripts/hot-functions.sh        (needs valgrind: scripts/install-deps.sh)
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)
command -v valgrind >/dev/null || { echo "hot-functions: valgrind is missing; run scripts/install-deps.sh" >&2; exit 2; }

# Inside the driver's "run" step: follow rotationd with each client under callgrind, until it prints a state.
if [ "$1" = --clients ]; then
    sock=$2 out=$3
    for c in rotwatch follow-rotation; do
        valgrind -q --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$out/$c.cg" \
            "$ROOT/.build/release/$c" $([ $c = rotwatch ] && echo --socket) "$sock" >"$out/$c.out" 2>&1 &
        pid=$!
        n=0
        until grep -q -E '(°|^[0-9]+$)' "$out/$c.out" 2>/dev/null; do
            n=$((n + 1))
            [ $n -lt 600 ] || { echo "hot-functions: $c printed no state in 60 s" >&2; kill "$pid"; exit 1; }
            sleep 0.1
        done
        sleep 1
        kill -TERM "$pid"
        wait "$pid" || true
    done
    exit 0
fi

make -s binaries
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
python3 scripts/make-still-trace.py "$OUT/still.csv"
SOCK=$OUT/rotationd.sock

# trace FIXTURE TARGET NAME [CLIENTS]: rotationd under callgrind, serving one subscriber from FIXTURE.
trace() {
    fixture=$1 target=$2 name=$3
    steps="[[\"start\"],[\"feed-trace\",\"$target\",\"$OUT/still.csv\",0.01,50,120,5],[\"connect\",\"$SOCK\",60],"
    steps="$steps[\"wait-sock\",\"\\\"rotation\\\":[0-9]\",60],[\"sleep\",5]"
    [ -z "$4" ] || steps="$steps,[\"run\",[\"sh\",\"$ROOT/scripts/hot-functions.sh\",\"--clients\",\"$SOCK\",\"$OUT\"]]"
    steps="$steps,[\"alive\"]]"
    rm -f "$SOCK"
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device "$fixture" --actions "$steps" -- \
        valgrind -q --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$OUT/$name.cg" \
        "$ROOT/.build/release/rotationd" --serve --socket "$SOCK" --rate 50 >"$OUT/$name.out" 2>"$OUT/$name.err" || {
        echo "hot-functions: the $name run failed:" >&2; tail -20 "$OUT/$name.err" >&2; exit 1; }
}
trace bench-polled.umockdev attr:iio:device0 polled clients
trace bench-buffered.umockdev /dev/iio:device0 buffered

python3 - "$OUT" > data/hot-functions.txt <<'PY'
import re, sys
out = sys.argv[1]

def functions(path, program):
    """The functions of PROGRAM's own file that ran, in the order callgrind lists them."""
    names, objects, found, current = {}, {}, [], None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                objects[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                current = objects.get(m.group(2), "")
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn" and current.endswith("/" + program):
                found.append(names[m.group(2)])
    return found

listed, seen = [], set()
for cg, program in [("polled.cg", "rotationd"), ("buffered.cg", "rotationd"), ("rotwatch.cg", "rotwatch"),
                    ("follow-rotation.cg", "follow-rotation")]:
    for name in functions("%s/%s" % (out, cg), program):
        if name not in seen and not name.startswith("0x"):
            seen.add(name)
            listed.append(name)
print("# The functions rotationd, rotwatch and follow-rotation run, written by scripts/hot-functions.sh;")
print("# the release link (Makefile, RELEASE) places them first in .text, in this order.")
print("\n".join(listed))
PY
# The next make binaries links them anew with the new list.
rm -f .build/release/rotationd .build/release/rotwatch .build/release/follow-rotation
echo "hot-functions: $(grep -c -v "^#" data/hot-functions.txt) functions in data/hot-functions.txt; make binaries links with them"
