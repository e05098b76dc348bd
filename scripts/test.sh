#!/bin/sh
# Runs the whole test suite: in groups side by side (scripts/test-groups.sh) with the C library's and the
# GStreamer element's tests (scripts/test-c.sh), then again under ThreadSanitizer and under AddressSanitizer,
# with every program the tests start built the same way (scripts/test-sanitizers.sh). Ends with each phase's
# time.
#
# The sensor and service tests spend most of their time waiting on traces played in real time, and leave
# the processors mostly idle; the builds are the other way round. So only the first build (the debug build
# with the test bundle) runs alone. The next ones run one after another in the background, in the idle
# scheduling class (CPU and I/O), so that they take only what the tests leave: the static release build and
# the Debian package (`make deb`), then the ThreadSanitizer build, then the AddressSanitizer build. Each test
# phase starts as soon as its build is there:
#   debug build -> sensor and service tests -> packaging tests (need the package), beside the C tests
#               -> ThreadSanitizer tests -> AddressSanitizer tests
# The C tests build with gcc and fuzz at full speed, which the emulated sensors' feeders would feel: they run
# beside the packaging tests, which wait on nothing played in real time.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/phases"
# The test groups append their failed tests here; they are printed again last, beside the phases.
ROTATIOND_FAILURES=$work/failures
export ROTATIOND_FAILURES
: >"$ROTATIOND_FAILURES"

# phase NAME COMMAND...: runs COMMAND and notes when it started and ended, seconds into the run.
# (sh has no local variables: each function keeps to names of its own.)
phase() {
    phase_name=$1
    shift
    phase_start=$(($(date +%s) - t0))
    "$@"
    phase_rc=$?
    printf '%s %s %s %s\n' "$phase_start" "$(($(date +%s) - t0))" "$phase_rc" "$phase_name" >>"$work/phases"
    return $phase_rc
}

# idle COMMAND...: runs COMMAND in the idle scheduling class, for the processor and for the disk.
idle() {
    if command -v chrt >/dev/null && chrt -i 0 true 2>/dev/null; then
        chrt -i 0 ionice -c 3 "$@"
    else
        nice -n 19 "$@"
    fi
}

# background NAME COMMAND...: a build of the background queue; its output goes to a log, its status to NAME.rc.
background() {
    build_name=$1
    shift
    phase "$build_name (background)" idle "$@" >"$work/$build_name.log" 2>&1
    echo $? >"$work/$build_name.rc"
}

# await NAME: waits for the background build NAME; prints its log if it failed, and fails then.
await() {
    while [ ! -f "$work/$1.rc" ]; do sleep 1; done
    [ "$(cat "$work/$1.rc")" = 0 ] && return 0
    echo "test: $1 failed:" >&2
    cat "$work/$1.log" >&2
    return 1
}

report() {
    echo
    echo "phases (seconds from the start of the run):"
    sort -n "$work/phases" | while read -r s e rc name; do
        result=$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")
        printf '  %5s -> %5s  %5s s  %-50s %s\n' "$s" "$e" "$((e - s))" "$name" "$result"
    done
    echo "  total $(($(date +%s) - t0)) s"
}

if ! phase "build: debug, with the test bundle" swift build --build-tests; then
    report
    exit 1
fi
(
    background "build: release, and the package" make deb
    background "build: ThreadSanitizer" ./scripts/test-sanitizers.sh build thread
    background "build: AddressSanitizer" ./scripts/test-sanitizers.sh build address
) &

status=0
# No test may leave state in the machine's own state directory: each run of rotationd gets one of its own.
[ -e /var/lib/rotationd ] && state_before=1 || state_before=0
# The sizes the sources keep to (a file within 400 lines, a function within 60): scripts/check-sizes.py.
phase "checks: file and function sizes" python3 scripts/check-sizes.py || status=1
# .build/debug, not `swift build --show-bin-path`: SwiftPM holds the build directory's lock while the release
# build runs in it.
phase "tests: sensors and service" ./scripts/test-groups.sh .build/debug sensors service || status=1
if await "build: release, and the package"; then
    phase "tests: C library and element" ./scripts/test-c.sh .build/debug >"$work/test-c.log" 2>&1 &
    c_tests=$!
    phase "tests: packaging" ./scripts/test-groups.sh .build/debug packaging || status=1
    wait $c_tests || status=1
    cat "$work/test-c.log"
else
    status=1
fi
for sanitizer in thread address; do
    case $sanitizer in thread) build="build: ThreadSanitizer" ;; *) build="build: AddressSanitizer" ;; esac
    if await "$build"; then
        # Its build is done: test-sanitizers.sh finds nothing to rebuild.
        phase "tests: $sanitizer sanitizer" ./scripts/test-sanitizers.sh "$sanitizer" || status=1
    else
        status=1
    fi
done
wait
if [ $state_before = 0 ] && [ -e /var/lib/rotationd ]; then
    echo "tests: a test left /var/lib/rotationd behind; a rotationd it started had no STATE_DIRECTORY of its own:" \
        "$(ls -l /var/lib/rotationd)" | tee -a "$ROTATIOND_FAILURES"
    status=1
fi
for name in "build: release, and the package" "build: ThreadSanitizer" "build: AddressSanitizer"; do
    echo "==== $name: last lines of its log"
    tail -n 3 "$work/$name.log"
done
if [ -s "$ROTATIOND_FAILURES" ]; then
    echo "==== the failed tests"
    cat "$ROTATIOND_FAILURES"
fi
report
exit $status
