"""Feeds: scans written into device nodes' PTYs at a steady rate ("feed"), and a trace's x,y,z played into raw
attributes or a node in real time ("feed-trace")."""
import bisect
import os
import struct
import threading
import time

from . import results
from .common import STOPPING, Clock, program_monotonic_ns


class Feeder:
    """Writes one scan into a device node's PTY every 1/hz seconds until stopped; keeps the longest pause between
    two writes (the feeder thread itself held up, as on a loaded machine), which the driver prints at its end."""

    def __init__(self, node, fd, fmt, values, hz):
        self.node, self.fd, self.fmt, self.values, self.hz = node, fd, fmt, values, hz
        self.running = True
        self.longest_pause = 0.0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        period = 1.0 / self.hz
        nxt = time.monotonic()
        last = None
        while self.running and not STOPPING.is_set():
            vals = list(self.values)
            if self.fmt.endswith("q"):
                vals.append(program_monotonic_ns())
            try:
                os.write(self.fd, struct.pack(self.fmt, *vals))
            except OSError:
                return
            now = time.monotonic()
            if last is not None:
                self.longest_pause = max(self.longest_pause, now - last)
            last = now
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))

    def report(self):
        """Stops the feeder and reports its longest pause."""
        self.running = False
        results.say("feed: %s: longest pause between scans %.0f ms" % (self.node, self.longest_pause * 1000),
                    "feeder", node=self.node, longest_pause=self.longest_pause)


def feed(run, node, fmt, values, hz):
    """["feed", NODE, FORMAT, VALUES, HZ]
    Write struct.pack(FORMAT, *VALUES[, t_ns]) into the device node's PTY at HZ; a FORMAT ending in q gets a
    monotonic ns timestamp (PROGRAM's CLOCK_MONOTONIC); a second feed on the same NODE replaces the values. When
    the driver ends it prints "feed: NODE: longest pause between scans N ms" (the writer held up, as on a loaded
    machine)."""
    if node in run.feeders and run.feeders[node].running:
        run.feeders[node].values = values
    else:
        run.feeders[node] = Feeder(node, run.tb.get_dev_fd(node), fmt, values, hz)


def feed_stop(run, node):
    """["feed-stop", NODE]
    Stop the feed of NODE."""
    run.feeders.pop(node).running = False


def feed_trace(run, target, trace, scale, hz, seconds, burst=1):
    """["feed-trace", TARGET, TRACE, SCALE, HZ, SECONDS, BURST]
    In the background, play a trace's x,y,z (divided by SCALE) in real time, looping, for SECONDS: TARGET is
    "attr:DEVICE" (raw attributes, updated at HZ) or a node (buffered: scans "<hhhxxq" at the device's
    sampling_frequency, else HZ, written a watermark's worth at a time, else BURST (1 when left out), as a
    hardware FIFO hands them over). TRACE is opened as given (relative to the current directory). Prints
    "feed-trace: TARGET started at T" (T on PROGRAM's CLOCK_MONOTONIC)."""
    args = (run.tb, run.set_attr, target, trace, scale, hz, seconds, burst)
    threading.Thread(target=_feed_trace, args=args, daemon=True).start()


def _load_xyz(trace, scale):
    times, rows = [], []
    with open(trace) as f:
        next(f)
        for line in f:
            parts = line.strip().split(",")
            if len(parts) >= 4:
                times.append(float(parts[0]))
                rows.append([int(round(float(v) / scale)) for v in parts[1:4]])
    return times, rows


def _setting(root, device, attr, default):
    """A positive number from a device's attribute, else DEFAULT."""
    try:
        with open(os.path.join(root, "sys/bus/iio/devices", device, attr)) as f:
            value = float(f.read().strip("\0\n "))
        return value if value > 0 else default
    except (OSError, ValueError):
        return default


def _feed_trace(tb, set_attr, target, trace, scale, hz, seconds, burst):
    """Plays a trace into an emulated sensor, in real time by the trace's own timestamps, looping.

    A polled sensor ("attr:DEVICE") updates its raw attributes at HZ. A buffered sensor behaves as the hardware
    would: it samples at the frequency written to its sampling_frequency attribute (HZ when it has none) and
    hands scans over in bursts of its buffer/watermark (BURST when it has none), so a reader that lowers the
    frequency or raises the watermark is woken less often."""
    times, rows = _load_xyz(trace, scale)
    origin = times[0]
    span = times[-1] - origin + (times[1] - times[0] if len(times) > 1 else 1.0)
    fd = None if target.startswith("attr:") else tb.get_dev_fd(target)
    device = target[len("attr:"):] if fd is None else os.path.basename(target)
    root = tb.get_root_dir()
    start = nxt = time.monotonic()
    # The trace's time 0 on CLOCK_MONOTONIC, the clock of the program's "t", for latency measurements.
    results.say("feed-trace: %s started at %.6f" % (target, start - Clock.slept), "feed-trace-started",
                target=target, at=start - Clock.slept)
    pending, count = b"", 0
    while not STOPPING.is_set():
        now = time.monotonic()
        if now - start >= seconds:
            return
        k = bisect.bisect_right(times, origin + (now - start) % span) - 1
        x, y, z = rows[max(k, 0)]
        if fd is None:
            for axis, value in zip("xyz", (x, y, z)):
                set_attr(device, "in_accel_%s_raw" % axis, value)
            nxt += 1.0 / hz
        else:
            pending += struct.pack("<hhhxxq", x, y, z, program_monotonic_ns())
            count += 1
            if count >= int(_setting(root, device, "buffer/watermark", burst)):
                os.write(fd, pending)
                pending, count = b"", 0
            nxt += 1.0 / _setting(root, device, "sampling_frequency", hz)
        time.sleep(max(0.0, nxt - time.monotonic()))
