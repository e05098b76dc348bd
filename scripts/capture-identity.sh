#!/bin/sh
# Compares how two rotationd binaries capture from every emulated driver of Tests/fixtures/zoo: for each fixture,
# the four-poses trace played once under each binary (rotationd --print), and a summary of what each run showed:
# the rotations published, the capture mode, every distinct write to the emulated sysfs with the kernel's answer,
# the event descriptors asked for, and the info, warning and error lines with their numbers masked. Prints the
# fixtures whose summaries differ (with the difference) and ends with "N same, N differ".
#
#   scripts/capture-identity.sh OLD_ROTATIOND NEW_ROTATIOND      (FIXTURES="mxc4005 bmi323" to run some only)
#
# OLD_DRIVER and NEW_DRIVER name the test bed's driver each side runs under (both Tests/Testbed/umockdev-driver.py
# by default): one binary given twice with two drivers compares the drivers instead.
#
# The runs play in real time (about 20 s each), two at a time.
set -u
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/capture-identity.sh OLD_ROTATIOND NEW_ROTATIOND" >&2; exit 2; }
OLD=$1 NEW=$2
OLD_DRIVER=${OLD_DRIVER:-Tests/Testbed/umockdev-driver.py} NEW_DRIVER=${NEW_DRIVER:-Tests/Testbed/umockdev-driver.py}
ALL="hid-sensor bmc150-dual bmc150-noirq bmc150-int2 bmc150-lostevent kxcjk-1013 mxc4005 mxc4005-noirq st_accel cros-ec cros-ec-location inv_mpu6050 inv_mpu6050-gyro-scale-x1000 bmi323 st_lsm6dsx st_lsm6dsx-noirq mma8452"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
STEPS='[["start"],["play","zoo/four-poses.csv",25],["wait","\"rotation\":90,",10],["wait","\"rotation\":180,",10],["wait","\"rotation\":270,",10],["wait","\"rotation\":0,",10],["sleep",1],["stop"]]'

# summary RUN: the run's normalised summary on stdout.
summary() {
    /usr/bin/python3 - "$1.out" "$1.err" <<'PY'
import json, re, sys
out, err = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
rotations = []
for line in out:
    try:
        r = json.loads(line).get("rotation")
    except ValueError:
        continue
    if r is not None and (not rotations or rotations[-1] != r):
        rotations.append(r)
print("rotations", rotations)
writes = sorted({re.sub(r" at [0-9.]+$", "", l[len("kernel: write "):]) for l in err if l.startswith("kernel: write ")})
for w in writes:
    print("write", w)
mask = lambda s: re.sub(r"[0-9]+(\.[0-9]+)?", "N", s)
for l in sorted({mask(l) for l in err if re.match(r"rotationd: (info|warning|error)", l)}):
    print(l)
PY
}

run() {
    fixture=$1 which=$2 bin=$3 driver=$4
    umockdev-wrapper /usr/bin/python3 "$driver" --device "zoo/$fixture.umockdev" \
        --actions "$STEPS" -- "$bin" --print >"$OUT/$fixture.$which.out" 2>"$OUT/$fixture.$which.err"
    summary "$OUT/$fixture.$which" >"$OUT/$fixture.$which.sum"
}

same=0 differ=0
for fixture in ${FIXTURES:-$ALL}; do
    run "$fixture" old "$OLD" "$OLD_DRIVER" &
    run "$fixture" new "$NEW" "$NEW_DRIVER"
    wait
    if diff -u "$OUT/$fixture.old.sum" "$OUT/$fixture.new.sum" >"$OUT/diff"; then
        same=$((same + 1))
        echo "$fixture: same ($(head -1 "$OUT/$fixture.new.sum"), $(grep -c '^write' "$OUT/$fixture.new.sum") distinct writes)"
    else
        differ=$((differ + 1))
        echo "$fixture: DIFFERS"
        sed 's/^/    /' "$OUT/diff"
    fi
done
echo "$same same, $differ differ"
[ "$differ" -eq 0 ]
