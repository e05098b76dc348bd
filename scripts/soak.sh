#!/bin/sh
# Runs the sensor and service groups under ThreadSanitizer RUNS times in a row, each beside a clean
# AddressSanitizer build in the idle scheduling class, the load CI puts on them (scripts/test.sh), and prints a
# table: each run's status, its time and the tests that failed. Exits 1 if any run failed.
#   scripts/soak.sh [RUNS]          default 10
# The ThreadSanitizer build is made once, first. Each run removes .build/sanitize-address and builds it again
# beside the tests; the build is stopped when the tests end, so a run lasts as long as its tests.
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
SWIFT=${SWIFT:-swift}
./scripts/test-sanitizers.sh build thread >/dev/null || { echo "soak: the ThreadSanitizer build failed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed_runs=0
printf '%-4s %-7s %6s  %s\n' run status seconds "failed tests" >"$work/table"
i=1
while [ "$i" -le "$runs" ]; do
    rm -rf .build/sanitize-address
    # In a session of its own, so that the compilers it starts end with it.
    setsid sh -c 'if command -v chrt >/dev/null && chrt -i 0 true 2>/dev/null; then set -- chrt -i 0 ionice -c 3 "$@"
                  else set -- nice -n 19 "$@"; fi
                  exec "$@" build --build-path .build/sanitize-address --sanitize=address --build-tests' sh "$SWIFT" \
        >"$work/asan.log" 2>&1 &
    builder=$!
    : >"$work/failures"
    start=$(date +%s)
    if ROTATIOND_FAILURES=$work/failures ./scripts/test-sanitizers.sh thread >"$work/run-$i.log" 2>&1; then
        status=passed
    else
        status=FAILED
        failed_runs=$((failed_runs + 1))
    fi
    seconds=$(($(date +%s) - start))
    # Every process of its session: the compiler drivers put themselves in process groups of their own.
    pkill -KILL -s "$builder" 2>/dev/null
    wait "$builder" 2>/dev/null
    while pgrep -s "$builder" >/dev/null; do pkill -KILL -s "$builder"; sleep 1; done
    names=$(grep '✘ Test .* failed' "$work/failures" 2>/dev/null | sed 's/.*✘ Test //; s/ failed after.*//' | cut -c1-70 |
        sort -u | tr '\n' ';')
    [ "$status" = FAILED ] && [ -z "$names" ] && names="(see the log: $(tail -n 1 "$work/run-$i.log"))"
    printf '%-4s %-7s %6s  %s\n' "$i" "$status" "$seconds" "${names:--}" >>"$work/table"
    [ "$status" = FAILED ] && { echo "==== run $i failed:"; cat "$work/failures"; }
    i=$((i + 1))
done
cat "$work/table"
echo "soak: $((runs - failed_runs)) of $runs runs passed"
[ "$failed_runs" = 0 ]
