#!/bin/sh
# Runs the test suite under ThreadSanitizer, then under AddressSanitizer: every program the tests start
# (rotationd, rotwatch, the fuzz replayers) built with the sanitizer in a build path of its own,
# .build/sanitize-thread and .build/sanitize-address. Under ThreadSanitizer the test bundle is built with it
# too, so the races of the service's code run inside the tests' own process are seen; under AddressSanitizer
# the tests run from the ordinary debug bundle (.build/debug, built first with swift build --build-tests),
# not instrumented, and the programs they start, where the C libraries and the system calls are, are. That
# spares the instrumented build of the tests, most of a CI run's slowest build.
#   scripts/test-sanitizers.sh [thread|address ...]         build, then test; default: thread address
#   scripts/test-sanitizers.sh build [thread|address ...]   only build (scripts/test.sh builds ahead this way)
# The tests run in groups side by side (scripts/test-groups.sh): the sensor and service groups. The
# packaging group is left out: it checks the Debian package, whose binaries are the release build, the same
# files whatever the tests were built with. The tests find the instrumented programs through
# ROTATIOND_BIN_DIR. A sanitizer report fails the test that started the program (each spawned program writes
# its reports to a log_path of its own, which the test reads); a report from the test bundle itself, or from
# a program started outside the test helpers, lands in the build path's reports/ directory and fails the run.
set -u
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
build_only=0
if [ "${1:-}" = build ]; then
    build_only=1
    shift
fi
flags() {
    # Under ThreadSanitizer the code locks with pthread mutexes, whose ordering the sanitizer sees
    # (Sources/RotationSystem/ThreadSanitizerMutex.swift says why).
    echo "--build-path .build/sanitize-$1 --sanitize=$1"
    [ "$1" = thread ] && echo "-Xswiftc -DSANITIZE_THREAD"
}
# The build's own test bundle under ThreadSanitizer; the programs alone under AddressSanitizer.
tests_built() { [ "$1" = thread ] && echo "--build-tests"; }
status=0
for sanitizer in ${*:-thread address}; do
    f=$(flags "$sanitizer")
    start=$(date +%s)
    # shellcheck disable=SC2086
    $SWIFT build $f $(tests_built "$sanitizer") || { status=1; continue; }
    built=$(date +%s)
    [ $build_only = 1 ] && { echo "test-sanitizers: $sanitizer: build $((built - start)) s"; continue; }
    build=.build/sanitize-$sanitizer
    reports=$PWD/$build/reports
    rm -rf "$reports"
    mkdir -p "$reports"
    # shellcheck disable=SC2086
    ROTATIOND_BIN_DIR=$($SWIFT build $f --show-bin-path)
    export ROTATIOND_BIN_DIR
    # Stop at the first report, with an exit status no test expects. The Swift runtime's crash backtracer is
    # off: it reads the crashed thread's stack, which AddressSanitizer would report as a second error.
    # LeakSanitizer is off: the Swift runtime keeps its metadata caches for the life of a process.
    export SWIFT_BACKTRACE=enable=no
    export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$reports/report"
    export ASAN_OPTIONS="halt_on_error=1:exitcode=66:detect_leaks=0:log_path=$reports/report"
    bundle=$ROTATIOND_BIN_DIR
    if [ -z "$(tests_built "$sanitizer")" ]; then
        bundle=.build/debug
        $SWIFT build --build-tests || { status=1; continue; }
    fi
    ./scripts/test-groups.sh "$bundle" sensors service || status=1
    done_at=$(date +%s)
    unset TSAN_OPTIONS ASAN_OPTIONS ROTATIOND_BIN_DIR
    if [ -n "$(ls "$reports")" ]; then
        echo "test-sanitizers: $sanitizer: reports outside any test's programs:" >&2
        cat "$reports"/* >&2
        # No test names these: their summary lines join the failed tests that scripts/test.sh prints last.
        { echo "test-sanitizers: $sanitizer: reports outside any test's programs:"
          grep -h '^SUMMARY:' "$reports"/* | cut -c1-400 | head -n 20; } >>"${ROTATIOND_FAILURES:-/dev/null}"
        status=1
    fi
    echo "test-sanitizers: $sanitizer: build $((built - start)) s, tests $((done_at - built)) s"
done
exit $status
