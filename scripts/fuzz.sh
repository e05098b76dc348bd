#!/bin/sh
# Builds the fuzz targets as libFuzzer fuzzers with AddressSanitizer and runs each for a set time, starting from
# its seed corpus in Fuzz/corpus. Prints one summary line per target: executions, corpus size, findings.
#   scripts/fuzz.sh [TARGET...]        default: every target
#   FUZZ_SECONDS    run time per target (default 60)
#   FUZZ_BUILD      build path (default .build/fuzz)
# New corpus entries go to $FUZZ_BUILD/corpus/TARGET (the seeds in Fuzz/corpus stay as they are); a finding is
# written to $FUZZ_BUILD/findings/TARGET-crash-... and fails the run. Docs/fuzzing.md says what to do with one.
set -u
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_BUILD=${FUZZ_BUILD:-.build/fuzz}
ALL="fuzz-json fuzz-client-command fuzz-server-message fuzz-trace fuzz-sysfs-number fuzz-mount-matrix fuzz-udev-properties fuzz-v4l2-controls"
TARGETS=${*:-$ALL}

# The longest input worth trying: a protocol line is at most 4096 bytes (a little more tests the limit), a
# trace may be long, sysfs values and udev properties are short.
max_len() {
    case $1 in
    fuzz-json|fuzz-client-command|fuzz-server-message) echo 4200 ;;
    fuzz-trace) echo 16384 ;;
    *) echo 1024 ;;
    esac
}

for t in $TARGETS; do
    $SWIFT build -c release --build-path "$FUZZ_BUILD" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product "$t" >/dev/null \
        || { echo "fuzz: building $t failed (run: $SWIFT build -c release --build-path $FUZZ_BUILD -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product $t)" >&2; exit 2; }
done
BIN=$($SWIFT build -c release --build-path "$FUZZ_BUILD" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --show-bin-path)

failed=0
mkdir -p "$FUZZ_BUILD/findings" "$FUZZ_BUILD/logs"
printf '%-22s %12s %8s %8s  %s\n' target executions exec/s corpus findings
for t in $TARGETS; do
    mkdir -p "$FUZZ_BUILD/corpus/$t"
    log="$FUZZ_BUILD/logs/$t.log"
    before=$(ls "$FUZZ_BUILD/findings" | grep -c "^$t-")
    # Swift's runtime keeps its metadata caches for the life of the process: not leaks worth reporting. Its
    # backtracer reads the crashed thread's stack, which AddressSanitizer reports as a second error: libFuzzer
    # reports the crash itself.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} SWIFT_BACKTRACE=enable=no "$BIN/$t" "$FUZZ_BUILD/corpus/$t" "Fuzz/corpus/$t" \
        -max_total_time="$FUZZ_SECONDS" -max_len="$(max_len "$t")" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$FUZZ_BUILD/findings/$t-" > "$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(find "$FUZZ_BUILD/corpus/$t" "Fuzz/corpus/$t" -type f | wc -l)
    findings=$(( $(ls "$FUZZ_BUILD/findings" | grep -c "^$t-") - before ))
    if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
        failed=1
        printf '%-22s %12s %8s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$corpus" "$findings (exit $status; see $log)"
    else
        printf '%-22s %12s %8s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$corpus" "none"
    fi
done
exit $failed
