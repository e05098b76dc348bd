#!/bin/sh
# The C side's tests in one command: librotationd and the rotationdtag GStreamer element, against the real
# rotationd and rotwatch in BIN_DIR.
#   scripts/test-c.sh [BIN_DIR]      default: $ROTATIOND_BIN_DIR, else .build/debug
#   FUZZ_SECONDS                     how long the parser is fuzzed (default 20)
# It builds the library, the element and the tests twice, normally and with -fsanitize=address,undefined
# (-fno-sanitize-recover), into build/test-c, installs the normal build with `make install DESTDIR=...` into a
# scratch root, then runs side by side:
#   unit       Tests/c/test-client.c, both builds: the parser, the history, a fake service in the test
#   fuzz       the parser under libFuzzer (clang) for FUZZ_SECONDS from librotationd/fuzz/corpus
#   follow     Tests/c/follow-keys.c, built only with `pkg-config --cflags --libs rotationd` against the scratch
#              root, and again with the sanitizers: its answers for every camera key against rotwatch's while a
#              served replay turns, stops, restarts, and a fake service (Tests/c/garbage-service.py) sends garbage
#   live       a live rotationd on umockdev's emulated accelerometer and cameras: follow-keys asked for each camera by
#              name, node, libcamera id and bus path against rotwatch, in three poses
#   pipelines  Tests/c/pipelines.py with the installed element, and again with the sanitized one: real pipelines
#              read back by exiftool and videoflip's output size
#   qt         Tests/c/qt-sensor.py: the installed QtSensors plugin through a QOrientationSensor program
#              (qt/tests/follow-orientation.cpp) against a served replay, compared with rotwatch --json; no service,
#              a restart, and Sensors.conf naming it the default
#   sway       Tests/c/sway-follow.py: rotwatch --exec with rotwatch(1)'s sway example turning a real headless
#              sway, run as an unprivileged user (created when missing; skipped without root), against a served
#              replay: the output's transform follows every change within 0.5 s
# Each test prints its name; the run prints each part's output, then one line per part, "N passed, N failed" and
# its wall time, and exits 1 when anything failed. Nothing here waits on a quiet machine: times are compared
# with what the service published, never with the clock on the wall; only the qt and sway parts bound how late
# a reading or a turned output may come after the state's t (0.3 s, 0.5 s), which leaves a loaded machine room.
set -u
cd "$(dirname "$0")/.."
root_dir=$(pwd)
BIN_DIR=${1:-${ROTATIOND_BIN_DIR:-.build/debug}}
case $BIN_DIR in /*) ;; *) BIN_DIR=$root_dir/$BIN_DIR ;; esac
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
began=$(date +%s)
die() { echo "test-c: $*" >&2; exit 1; }
for b in rotationd rotwatch; do
    [ -x "$BIN_DIR/$b" ] || die "no $b in $BIN_DIR: build it first (swift build), or pass the directory of the built binaries"
done
for tool in gcc g++ pkg-config qtpaths6 exiftool umockdev-wrapper /usr/bin/python3; do
    command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh"
done
for module in json-c gstreamer-1.0 gstreamer-base-1.0 Qt6Sensors; do
    pkg-config --exists "$module" || die "pkg-config finds no $module: run scripts/install-deps.sh"
done
CLANG=$(command -v clang || echo /opt/swift/usr/bin/clang)
[ -x "$CLANG" ] || die "no clang with libFuzzer: the Swift toolchain's clang must be on PATH"

OUT=$root_dir/build/test-c
# Socket paths must stay under 108 bytes: a short scratch directory.
work=$(mktemp -d /tmp/rtc-XXXXXX)
# The services these tests start keep their camera memory here, never in the machine's /var/lib/rotationd.
export STATE_DIRECTORY="$work/state"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
JSONC="$(pkg-config --cflags --libs json-c)"
mkdir -p "$OUT"

# ---- the parts, side by side ----
logs=$work/logs
mkdir -p "$logs"
part() {
    name=$1
    shift
    ( start=$(date +%s)
      if "$@" >"$logs/$name" 2>&1; then s=passed; else s=FAILED; fi
      echo "$s $(($(date +%s) - start)) s" >"$logs/$name.status" ) &
    pids="$pids $!"
}

fuzz() {
    "$CLANG" -fuse-ld=lld -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Ilibrotationd \
        $(pkg-config --cflags json-c) librotationd/fuzz/fuzz-parse.c librotationd/message.c $(pkg-config --libs json-c) -lm \
        -o "$OUT/fuzz-parse" 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$OUT/fuzz-parse" ] || { echo "FAIL - building the fuzz target with $CLANG"; return 1; }
    mkdir -p "$work/corpus" "$OUT/findings"
    ASAN_OPTIONS=detect_leaks=1 "$OUT/fuzz-parse" -max_total_time="$FUZZ_SECONDS" -max_len=4200 -print_final_stats=1 \
        -artifact_prefix="$OUT/findings/" "$work/corpus" librotationd/fuzz/corpus >"$work/fuzz.log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
    if [ $status -eq 0 ]; then
        echo "ok - the parser under libFuzzer for $FUZZ_SECONDS s: ${runs:-?} executions, no finding"
    else
        tail -40 "$work/fuzz.log"
        echo "FAIL - the parser under libFuzzer: a finding, kept in $OUT/findings (Docs/fuzzing.md)"
        return 1
    fi
}

# ---- builds ----
step() { echo "test-c: [$(($(date +%s) - began)) s] $*"; }
step "building the library, the element and the tests, normally and with the sanitizers, and the Qt plugin"
build() {
    kind=$1
    flags="-O2 -g"
    [ "$kind" = asan ] && flags="-O1 -g $SAN"
    # The normal build adds the QtSensors plugin, which make install then finds built.
    targets=clibs
    [ "$kind" = normal ] && targets="clibs qt"
    # shellcheck disable=SC2086
    make -s $targets CBUILD="$OUT/$kind" CFLAGS="$flags -Werror" CXXFLAGS="$flags -Werror" LDFLAGS="$([ "$kind" = asan ] && echo "$SAN")" &&
        gcc -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter $flags -Ilibrotationd -o "$OUT/$kind/test-client" \
            Tests/c/test-client.c librotationd/client.c librotationd/message.c $JSONC -lm
}
build normal >"$OUT/build-normal.log" 2>&1 &
normal_build=$!
build asan >"$OUT/build-asan.log" 2>&1 || { cat "$OUT/build-asan.log"; die "the sanitizer build failed"; }
wait $normal_build || { cat "$OUT/build-normal.log"; die "building the library, the element, the Qt plugin or Tests/c/test-client.c failed"; }
: >"$OUT/build.log"
step "installing into a scratch root with make install DESTDIR=..."
destdir=$work/root
make -s install DESTDIR="$destdir" PREFIX=/usr CBUILD="$OUT/normal" BUILD_DIR="$BIN_DIR" >"$OUT/install.log" 2>&1 \
    || { cat "$OUT/install.log"; die "make install DESTDIR=$destdir failed"; }
plugindir=$destdir$(pkg-config --variable=pluginsdir gstreamer-1.0)
[ -f "$plugindir/libgstrotationd.so" ] || die "make install put no libgstrotationd.so in GStreamer's plugin directory ($plugindir)"
qtplugins=$destdir$(qtpaths6 --query QT_INSTALL_PLUGINS)
[ -f "$qtplugins/sensors/libqtsensors_rotationd.so" ] || die "make install put no libqtsensors_rotationd.so in Qt's sensors plugin directory ($qtplugins/sensors)"
export PKG_CONFIG_PATH="$destdir/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$destdir"
[ "$(pkg-config --modversion rotationd)" = "$("$BIN_DIR/rotationd" --version | cut -d' ' -f2)" ] \
    || die "the installed rotationd.pc says version $(pkg-config --modversion rotationd 2>&1), rotationd another"
# A capture program's build: nothing but what pkg-config says.
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$OUT/normal/follow-keys" Tests/c/follow-keys.c $(pkg-config --cflags --libs rotationd) \
    >>"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; die "building follow-keys with pkg-config --cflags --libs rotationd failed"; }
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# shellcheck disable=SC2086
gcc -std=c11 -Wall -Wextra -Werror -O1 -g $SAN -Ilibrotationd -o "$OUT/asan/follow-keys" Tests/c/follow-keys.c \
    -L"$OUT/asan" -lrotationd >>"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; die "building follow-keys (sanitizers) failed"; }
lib_normal=$destdir/usr/lib
lib_asan=$OUT/asan
libasan=$(gcc -print-file-name=libasan.so)

unit() {
    "$OUT/normal/test-client" "$work/u-normal" || return 1
    ASAN_OPTIONS=$ASAN_OPTIONS "$OUT/asan/test-client" "$work/u-asan"
}
mkdir -p "$work/u-normal" "$work/u-asan"

# A served replay that turns the device through each rotation; a back and a front camera on scratch nodes, one
# reached through a symlink as /dev/v4l/by-id/... is.
write_turns() {
    /usr/bin/python3 - "$1" <<'PY'
import sys
poses = [(0, -9.81, 0)] * 100 + [(9.81, 0, 0)] * 60 + [(0, 9.81, 0)] * 60 + [(-9.81, 0, 0)] * 60 + [(0, -9.81, 0)] * 60
with open(sys.argv[1], "w") as f:
    f.write("t,x,y,z\n")
    for i, p in enumerate(poses):
        f.write("%.4f,%.3f,%.3f,%.3f\n" % ((i / 100,) + p))
PY
}

wait_socket() {
    i=0
    while [ $i -lt 200 ]; do
        /usr/bin/python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

follow() {
    kind=$1 lib=$2
    d=$work/f-$kind
    mkdir -p "$d"
    sock=$d/s.sock
    write_turns "$d/turns.csv"
    : >"$d/video0"
    : >"$d/video1"
    ln -s "$d/video0" "$d/by-id-cam"
    serve() { "$BIN_DIR/rotationd" --replay "$d/turns.csv" --socket "$sock" --camera "back:back:90:$d/video0" \
              --camera "front:front:270:$d/video1" 2>>"$d/service.log" & }
    serve
    svc=$!
    wait_socket "$sock" || { echo "FAIL - rotationd did not serve"; cat "$d/service.log"; return 1; }
    LD_LIBRARY_PATH=$lib "$OUT/$kind/follow-keys" --socket "$sock" --seconds 18 back "$d/video0" "$d/by-id-cam" front "$d/video1" \
        >"$d/follow.out" 2>"$d/follow.err" &
    fk=$!
    "$BIN_DIR/rotwatch" --json --socket "$sock" >"$d/rotwatch.out" 2>/dev/null &
    rw=$!
    sleep 3
    kill "$svc"; wait "$svc"
    sleep 0.5
    serve
    svc=$!
    sleep 4.5
    kill "$svc" "$rw"; wait "$svc" "$rw" 2>/dev/null
    /usr/bin/python3 Tests/c/garbage-service.py "$sock" "$d/video0" "$d/video1" &
    gs=$!
    wait "$fk"
    status=$?
    kill "$gs"; wait "$gs" 2>/dev/null
    cat "$d/follow.err"
    if [ $status -ne 0 ]; then
        echo "FAIL - follow-keys ($kind) exited with status $status"
        tail -5 "$d/follow.out"
        return 1
    fi
    echo "ok - follow-keys ($kind) ran through the service stopping, restarting and a fake one sending garbage, and exited 0"
    /usr/bin/python3 Tests/c/compare-keys.py follow "$d/follow.out" "$d/rotwatch.out" --final-seq 777 --reconnects 2
}

live() {
    sock=$work/live.sock
    cmp="env LD_LIBRARY_PATH=$lib_normal /usr/bin/python3 $root_dir/Tests/c/compare-keys.py once $sock $OUT/normal/follow-keys $BIN_DIR/rotwatch"
    once=$(printf '"%s",' $cmp | sed 's/,$//')
    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device polled.umockdev --device camera-builtin.umockdev \
        --device camera-webcam.umockdev --device camera-usb-host.umockdev --actions "[
            [\"start\"], [\"connect\", \"$sock\", 10], [\"wait-sock\", \"\\\"rotation\\\":0\", 10], [\"run\", [$once]],
            [\"set\", \"iio:device0\", {\"in_accel_x_raw\": 8, \"in_accel_y_raw\": 521, \"in_accel_z_raw\": -67}],
            [\"wait-sock\", \"\\\"rotation\\\":270\", 10], [\"run\", [$once]],
            [\"set\", \"iio:device0\", {\"in_accel_x_raw\": -523, \"in_accel_y_raw\": 0, \"in_accel_z_raw\": 5}],
            [\"wait-sock\", \"\\\"rotation\\\":180\", 10], [\"run\", [$once]], [\"stop\"]]" \
        -- "$BIN_DIR/rotationd" --serve --socket "$sock" >"$work/live.out" 2>"$work/live.err"
    status=$?
    grep -E '^(ok|FAIL) - ' "$work/live.out"
    if [ $status -ne 0 ]; then
        grep '^driver' "$work/live.err"
        tail -20 "$work/live.err"
        echo "FAIL - the live service under umockdev (status $status)"
        return 1
    fi
}

pipelines() {
    kind=$1
    d=$work/p-$kind
    mkdir -p "$d"
    if [ "$kind" = normal ]; then
        GST_REGISTRY_1_0=$OUT/registry-normal.bin GST_PLUGIN_PATH=$plugindir LD_LIBRARY_PATH=$lib_normal \
            /usr/bin/python3 Tests/c/pipelines.py --rotationd "$BIN_DIR/rotationd" --scratch "$d"
    else
        # Python and GStreamer are not built with the sanitizers: their runtime is preloaded, and leaks are left to
        # the other parts (the interpreter's own would drown the report).
        GST_REGISTRY_1_0=$OUT/registry-asan.bin GST_PLUGIN_PATH=$OUT/asan LD_LIBRARY_PATH=$lib_asan LD_PRELOAD=$libasan \
            ASAN_OPTIONS=detect_leaks=0:exitcode=23 /usr/bin/python3 Tests/c/pipelines.py --rotationd "$BIN_DIR/rotationd" --scratch "$d"
    fi
}

# The QOrientationSensor program is built here, with nothing but what pkg-config says about Qt6Sensors, while the
# other parts mostly wait on their replays.
qt() {
    # shellcheck disable=SC2046
    g++ -std=c++17 -Wall -Wextra -Werror -fPIC -O1 -o "$OUT/normal/follow-orientation" qt/tests/follow-orientation.cpp \
        $(pkg-config --cflags --libs Qt6Sensors) || { echo "FAIL - building qt/tests/follow-orientation.cpp"; return 1; }
    /usr/bin/python3 Tests/c/qt-sensor.py --program "$OUT/normal/follow-orientation" --plugins "$qtplugins" --lib "$lib_normal" \
        --bin-dir "$BIN_DIR" --scratch "$work/qt"
}

step "running the fuzzer, unit, follow, live, pipelines, qt and sway side by side"
rm -f "$OUT/fuzz-parse"
part fuzz fuzz
part unit unit
part follow-normal follow normal "$lib_normal"
part follow-asan follow asan "$lib_asan"
part live live
part pipelines-normal pipelines normal
part pipelines-asan pipelines asan
part qt qt
part sway /usr/bin/python3 Tests/c/sway-follow.py --bin-dir "$BIN_DIR"
wait
pids=""

status=0
passed=0
failed=0
names="unit fuzz follow-normal follow-asan live pipelines-normal pipelines-asan qt sway"
for name in $names; do
    echo "==== $name: $(cat "$logs/$name.status" 2>/dev/null || echo 'FAILED (no status)')"
    cat "$logs/$name"
    p=$(grep -c '^ok - ' "$logs/$name")
    f=$(grep -c '^FAIL - ' "$logs/$name")
    passed=$((passed + p))
    failed=$((failed + f))
    case $(cat "$logs/$name.status" 2>/dev/null) in passed*) ;; *) status=1 ;; esac
done
for name in $names; do
    echo "test-c part $name: $(cat "$logs/$name.status" 2>/dev/null || echo FAILED)"
done
for name in $names; do
    case $(cat "$logs/$name.status" 2>/dev/null) in passed*) continue ;; esac
    echo "test-c part $name: what failed:"
    grep -E '^FAIL - ' "$logs/$name" | cut -c1-400 | head -n 20
done | tee -a "${ROTATIOND_FAILURES:-/dev/null}"
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "test-c: $passed passed, $failed failed"
echo "test-c: wall time $(($(date +%s) - began)) s"
exit $status
