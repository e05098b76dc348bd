#!/bin/sh
# Fan-out latency of the socket service to 1000 subscribers (CLIENTS), measured two ways; also saved to
# Docs/bench-fanout.txt. Each prints deliveries, missing events, seq gaps, and the p50, p99 and max latency.
#
# 1. In process: fanout-bench runs the service's server, publisher and engine itself, connects the
#    subscribers over the Unix socket and plays a trace in real time with a change every 0.25 s; latency is
#    from the sample that caused a change entering the engine to a subscriber having read the whole event.
# 2. rotationd process, live polled sensor under umockdev, 50 Hz: the release rotationd runs under
#    umockdev-run with Tests/fixtures/bench-polled.umockdev (a polled accelerometer, scale 0.01) and serves
#    the socket. fanout-bench --connect, a separate process outside umockdev, connects the subscribers, waits
#    for hello and state on each and for the state to stay quiet, then writes a ready file. A driver then
#    flips the emulated accelerometer between upright and left-edge-up every HOLD seconds, CHANGES times, by
#    writing each raw attribute to a temporary file under $UMOCKDEV_DIR/sys and renaming it over the old one.
#    Each state's `t` is the CLOCK_MONOTONIC time at which rotationd read the sample that caused the change
#    (so the engine's dwell and settle time is not counted); latency = CLOCK_MONOTONIC when a subscriber has
#    read the whole line - t. Both ends of the latency are on the same clock, in different processes.
#    umockdev's LD_PRELOAD library is loaded in rotationd and wraps its system calls, socket writes included.
#
#   SCRATCH  build directory (default .build)    CLIENTS  subscribers (default 1000)
#   CHANGES  changes to measure (default 40)     HOLD     seconds between live changes (default 0.5)
set -e
cd "$(dirname "$0")/.."

# Inside umockdev-run: start rotationd, the subscribers and the driver; print the subscribers' summary.
if [ "$1" = --live-inside ]; then
    dev=$UMOCKDEV_DIR/sys/bus/iio/devices/iio:device0
    [ -d "$dev" ] || { echo "bench-fanout: the testbed has no $dev" >&2; exit 1; }
    # Start upright (raw units of 0.01 m/s²) so the first decision is made before measuring.
    # New values are staged outside sys/, so a directory listing never shows a file that is about to vanish.
    staging=$UMOCKDEV_DIR/staging
    mkdir -p "$staging"
    for a in x:0 y:-981 z:0; do
        printf '%s\n' "${a#*:}" >"$staging/in_accel_${a%%:*}_raw"
        mv "$staging/in_accel_${a%%:*}_raw" "$dev/in_accel_${a%%:*}_raw"
    done
    "$SCRATCH/release/rotationd" --serve --socket "$WORK/rotationd.sock" --rate 50 2>"$WORK/rotationd.err" &
    daemon=$!
    env -u LD_PRELOAD -u UMOCKDEV_DIR "$SCRATCH/release/fanout-bench" --connect "$WORK/rotationd.sock" \
        --subscribers "$CLIENTS" --changes "$CHANGES" --ready-file "$WORK/ready" >"$WORK/bench.out" 2>&1 &
    bench=$!
    env -u LD_PRELOAD /usr/bin/python3 - "$dev" "$WORK/ready" "$CHANGES" "$HOLD" "$bench" "$staging" <<'PY' || true
import os, sys, time
dev, ready, changes, hold, bench = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
staging = sys.argv[6]
deadline = time.monotonic() + 90
while not os.path.exists(ready):
    try:
        os.kill(bench, 0)
    except OSError:
        sys.exit(1)
    if time.monotonic() > deadline:
        sys.exit("bench-fanout: the subscribers were not ready within 90 s")
    time.sleep(0.05)
poses = [{"x": 0, "y": -981, "z": 0}, {"x": 981, "y": 0, "z": 0}]
# Temporary files first, then the renames back to back, so a read rarely sees half a pose.
start = time.monotonic()
for k in range(1, changes + 1):
    time.sleep(max(0.0, start + k * hold - time.monotonic()))
    pose = poses[k % 2]
    for axis, value in pose.items():
        with open(os.path.join(staging, "in_accel_%s_raw" % axis), "w") as f:
            f.write("%d\n" % value)
    for axis in pose:
        os.rename(os.path.join(staging, "in_accel_%s_raw" % axis), os.path.join(dev, "in_accel_%s_raw" % axis))
PY
    status=0
    wait "$bench" || status=$?
    kill "$daemon" 2>/dev/null || true
    wait "$daemon" || true
    cat "$WORK/bench.out"
    if grep -q '^rotationd: info: using' "$WORK/rotationd.err"; then
        echo "sensor: $(grep '^rotationd: info: using' "$WORK/rotationd.err" | head -1 | sed 's/^rotationd: info: //')"
    else
        echo "sensor: never opened"
    fi
    echo "rotationd warnings: $(grep -c '^rotationd: warning' "$WORK/rotationd.err" || true)"
    exit "$status"
fi

SCRATCH=${SCRATCH:-.build}
CLIENTS=${CLIENTS:-1000}
CHANGES=${CHANGES:-40}
HOLD=${HOLD:-0.5}
swift build -c release --scratch-path "$SCRATCH" --product fanout-bench >&2
swift build -c release --scratch-path "$SCRATCH" --product rotationd >&2
# Two descriptors per subscriber in process: raise the soft limit as far as the hard limit allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export SCRATCH CLIENTS CHANGES HOLD WORK
status=0
{
    echo "fanout-bench (release; server, publisher and engine in process, subscribers read by one poll() thread)"
    echo "machine: $(nproc) cores, $(uname -sr)"
    "$SCRATCH/release/fanout-bench" --clients "$CLIENTS" --changes "$CHANGES" | sed 's/^/  /'
    echo
    echo "rotationd process, live polled sensor under umockdev, 50 Hz"
    echo "  (release rotationd --serve --rate 50 under umockdev-run; subscribers in a separate process read by one"
    echo "  poll() thread; the accelerometer flips upright <-> left-up every $HOLD s; latency from each event's t)"
    umockdev-run -d Tests/fixtures/bench-polled.umockdev -- sh "$0" --live-inside 2>&1 | sed 's/^/  /'
} | tee Docs/bench-fanout.txt
