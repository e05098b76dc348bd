#!/bin/sh
# Runs the built test bundle in BIN_DIR as four processes, three side by side, then prints each one's output in
# turn and exits 1 if any failed.
#   scripts/test-groups.sh BIN_DIR        e.g. .build/debug, or the path `swift build --show-bin-path` prints
# Most tests start rotationd under umockdev and wait for a trace played in real time; a test process runs
# as many tests at once as the machine has cores, each blocked on its child, so on two cores the suite
# would take as long as those waits end to end. The groups split the slow suites (the driver zoo's four poses;
# its listings, its parts watching for motion and the kernel's rules; the other live sensor tests) from each
# other and from the rest. The bundle is run directly: `swift test` holds the build directory's lock, so two of
# them never run at once.
set -u
cd "$(dirname "$0")/.."
bundle=$1/rotationdPackageTests.xctest
[ -x "$bundle" ] || { echo "test-groups: no test bundle at $bundle: build it with swift build --build-tests" >&2; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run() {
    name=$1
    shift
    start=$(date +%s)
    if NO_COLOR=1 "$bundle" --testing-library swift-testing "$@" >"$logs/$name" 2>&1; then
        echo "passed $(($(date +%s) - start)) s" >"$logs/$name.status"
    else
        echo "FAILED $(($(date +%s) - start)) s" >"$logs/$name.status"
    fi
}
run driver-zoo-poses --filter 'DriverZooTests/fourPoses' &
run driver-zoo-listing --filter 'DriverZooTests/listing|DriverZooTests/motion|KernelRulesTests' &
run live-sensors --filter RotationSensorsTests --skip 'DriverZooTests|KernelRulesTests' &
wait
# The rest builds packages, runs lintian and dpkg: after the emulated parts, whose feeders it would starve
# (even at the lowest priority), which a real sensor's hardware FIFO would not depend on.
run other --skip RotationSensorsTests
status=0
for name in driver-zoo-poses driver-zoo-listing live-sensors other; do
    echo "==== test group $name: $(cat "$logs/$name.status")"
    cat "$logs/$name"
    case $(cat "$logs/$name.status") in FAILED*) status=1 ;; esac
done
for name in driver-zoo-poses driver-zoo-listing live-sensors other; do
    echo "test group $name: $(cat "$logs/$name.status")"
done
exit $status
