#!/bin/sh
# Runs the built test bundle in BIN_DIR as groups of processes side by side, then prints each one's output in
# turn and exits 1 if any failed.
#   scripts/test-groups.sh BIN_DIR [GROUP ...]      e.g. .build/debug, or the path `swift build --show-bin-path`
# The failed tests are printed once more at the end, and appended to the file ROTATIOND_FAILURES if it is set.
# The groups (all three when none is named):
#   sensors     the umockdev-emulated sensors, as five processes: the driver zoo's four poses; its listings,
#               its parts watching for motion and the test bed's kernel rules; rotationd beside a raw poller and
#               beside iio-sensor-proxy on the zoo's drivers; a sleep of the system; the other live sensor tests
#   service     the engine, the service and clients as real processes, the cameras, the fuzz corpora
#   packaging   the Debian package in dist/ (`make deb`), lintian, man pages, completions, the packaged service
# Most tests start rotationd under umockdev and wait for a trace played in real time; a test process runs
# as many tests at once as the machine has cores, each blocked on its child, so on two cores the suite
# would take as long as those waits end to end: hence several processes. The bundle is run directly:
# `swift test` holds the build directory's lock, so two of them never run at once.
#
# The emulated sysfs trees (umockdev test beds) and the tests' scratch files go to a tmpfs of their own when
# one can be mounted (as root): a feeder that writes and renames sysfs values on a disk stalls for hundreds of
# milliseconds while a build or a package writes beside it, and rotationd then rightly sees the buffer go
# silent. A real sysfs is never on a disk.
set -u
cd "$(dirname "$0")/.."
bundle=$1/rotationdPackageTests.xctest
shift
[ -x "$bundle" ] || { echo "test-groups: no test bundle at $bundle: build it with swift build --build-tests" >&2; exit 1; }
groups=${*:-sensors service packaging}
logs=$(mktemp -d)
scratch=$(mktemp -d)
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=4g,mode=1777 rotationd-tests "$scratch" 2>/dev/null; then
    mounted=1
else
    mounted=0
    echo "test-groups: no tmpfs for the test beds (not root, or mount refused); they stay in $scratch"
fi
trap '[ $mounted = 1 ] && umount -l "$scratch"; rm -rf "$logs" "$scratch"' EXIT
run() {
    name=$1
    shift
    start=$(date +%s)
    if TMPDIR=$scratch NO_COLOR=1 "$bundle" --testing-library swift-testing "$@" >"$logs/$name" 2>&1; then
        echo "passed $(($(date +%s) - start)) s" >"$logs/$name.status"
    else
        echo "FAILED $(($(date +%s) - start)) s" >"$logs/$name.status"
    fi
}
names=""
for group in $groups; do
    case $group in
    sensors)
        run driver-zoo-poses --filter 'DriverZooTests/fourPoses' &
        run driver-zoo-listing --filter 'DriverZooTests|KernelRulesTests' --skip 'DriverZooTests/fourPoses' &
        run neighbours --filter NeighbourTests &
        run sleep --filter SleepWakeTests &
        run live-sensors --filter RotationSensorsTests --skip 'DriverZooTests|KernelRulesTests|NeighbourTests|SleepWakeTests' &
        names="$names driver-zoo-poses driver-zoo-listing neighbours sleep live-sensors" ;;
    service)
        run service --skip 'RotationSensorsTests|PackagingTests' &
        names="$names service" ;;
    packaging)
        run packaging --filter PackagingTests &
        names="$names packaging" ;;
    *)
        echo "test-groups: no group $group (sensors, service, packaging)" >&2
        exit 2 ;;
    esac
done
wait
status=0
for name in $names; do
    echo "==== test group $name: $(cat "$logs/$name.status")"
    cat "$logs/$name"
    case $(cat "$logs/$name.status") in FAILED*) status=1 ;; esac
done
for name in $names; do
    echo "test group $name: $(cat "$logs/$name.status")"
done
# The failed tests again, a few lines each, last: a log read from its end shows them without the scroll back.
for name in $names; do
    case $(cat "$logs/$name.status") in FAILED*) ;; *) continue ;; esac
    echo "test group $name: what failed:"
    # A test's name is cut to its first 60 characters, so that where it failed and why fit in the line.
    grep -E '✘|recorded an issue|ThreadSanitizer|AddressSanitizer|Fatal error' "$logs/$name" \
        | sed -E 's/(Test|Suite) "([^"]{0,60})[^"]*"/\1 "\2…"/' | cut -c1-600 | head -n 40
done | tee -a "${ROTATIOND_FAILURES:-/dev/null}"
exit $status
