#!/bin/sh
# Runs the whole test suite under ThreadSanitizer, then under AddressSanitizer: the test bundle and every
# program the tests start (rotationd, rotwatch, the fuzz replayers), all built with the sanitizer in a build
# path of their own, .build/sanitize-thread and .build/sanitize-address.
#   scripts/test-sanitizers.sh [thread|address ...]     default: thread address
# The tests run in groups side by side (scripts/test-groups.sh) and find the instrumented programs through
# ROTATIOND_BIN_DIR. A sanitizer report fails the test that started the program (each spawned program writes
# its reports to a log_path of its own, which the test reads); a report from the test bundle itself, or from
# a program started outside the test helpers, lands in the build path's reports/ directory and fails the run. The packaging tests read the package in dist/, which
# `make deb` builds (`make test-sanitizers` does it first).
set -u
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
status=0
for sanitizer in ${*:-thread address}; do
    build=.build/sanitize-$sanitizer
    reports=$PWD/$build/reports
    rm -rf "$reports"
    mkdir -p "$reports"
    # Under ThreadSanitizer the code locks with pthread mutexes, whose ordering the sanitizer sees
    # (Sources/RotationEngine/ThreadSanitizerMutex.swift says why).
    flags="--build-path $build --sanitize=$sanitizer"
    [ "$sanitizer" = thread ] && flags="$flags -Xswiftc -DSANITIZE_THREAD"
    start=$(date +%s)
    $SWIFT build $flags --build-tests || { status=1; continue; }
    built=$(date +%s)
    ROTATIOND_BIN_DIR=$($SWIFT build $flags --show-bin-path)
    export ROTATIOND_BIN_DIR
    # Stop at the first report, with an exit status no test expects. The Swift runtime's crash backtracer is
    # off: it reads the crashed thread's stack, which AddressSanitizer would report as a second error.
    # LeakSanitizer is off: the Swift runtime keeps its metadata caches for the life of a process.
    export SWIFT_BACKTRACE=enable=no
    export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$reports/report"
    export ASAN_OPTIONS="halt_on_error=1:exitcode=66:detect_leaks=0:log_path=$reports/report"
    ./scripts/test-groups.sh "$ROTATIOND_BIN_DIR" || status=1
    done_at=$(date +%s)
    unset TSAN_OPTIONS ASAN_OPTIONS ROTATIOND_BIN_DIR
    if [ -n "$(ls "$reports")" ]; then
        echo "test-sanitizers: $sanitizer: reports outside any test's programs:" >&2
        cat "$reports"/* >&2
        status=1
    fi
    echo "test-sanitizers: $sanitizer: build $((built - start)) s, tests $((done_at - built)) s"
done
exit $status
