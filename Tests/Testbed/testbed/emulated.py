"""The emulated sensors: an IIO device playing the truth of a trace as its driver and hardware would (EmulatedSensor)."""
import os
import re
import time

from .common import STOPPING
from .kernel import KernelLog
from .motion import MotionEvent


class EmulatedSensor:
    """One emulated IIO device playing the truth of a trace, as its driver and hardware would.

    The sidecar gives what the hardware is, not what the driver says: "sensor" (accel or anglvel), the true
    "scale" (SI units per count), "offset" (counts), "matrix" (device frame = matrix x sensor frame),
    "location" (display, or base: a keyboard half lying flat), "bits" (the range of a raw count) and "rate"
    (Hz, when the driver has no sampling frequency attribute).

    Raw attributes follow the trace all the time, as a raw read would. While buffer/enable is 1 the sensor
    samples at its sampling frequency (none while that reads 0), packs the enabled scan elements as the
    kernel lays them out (scan_elements/*_index, *_type; each element at an offset aligned to its storage
    size, the timestamp a CLOCK_REALTIME ns count) and hands them over a watermark's worth at a time, as a
    FIFO or a kfifo with a watermark wakes its reader.

    "hysteresis": "honoured" is a HID sensor hub that reports a scan only when a reading differs from the last one
    it reported by more than in_<sensor>_hysteresis on some axis (in g, the unit of the HID readings behind
    in_accel_scale = 9.80665 x 10^-3), while that is above 0; by default a hub ignores the attribute.

    "raw-reads": "reported" is a sensor of a HID sensor hub: the hub answers a raw read with an input report, and the
    driver pushes every input report into the buffer while it is enabled, the answer included (hid-sensor-hub.c's
    sensor_hub_raw_event hands each one to the driver's capture_sample and send_event): a scan of the reading for
    each raw read of one of the sensor's channels, whatever the hysteresis. Only a raw read that sleeps is logged,
    so the sensor needs a raw-delay rule.

    "interrupt": false is a sensor whose interrupt line does not reach the host: neither its buffer nor its
    events ever deliver anything. "events" describes its motion event (MotionEvent); "events-raised": false is a
    sensor that takes the event's enable and never raises it, though its buffer streams.
    """

    def __init__(self, tb, set_attr, device, spec):
        self.tb, self.set_attr, self.device, self.spec = tb, set_attr, device, spec
        self.root = tb.get_root_dir()
        self.channel = spec["sensor"]
        m = spec.get("matrix", [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        self.inverse = invert3(m)
        self.scale = spec["scale"]
        self.offset = spec.get("offset", [0, 0, 0])
        self.limit = 2 ** (spec.get("bits", 16) - 1)
        self.fd = None
        self.interrupt = spec.get("interrupt", True)
        raised = self.interrupt and spec.get("events-raised", True)
        self.events = MotionEvent(self, spec["events"]) if "events" in spec and raised else None
        # Suspend: asleep (no scan, no event); after the wake, the buffer silent until quiet_until (monotonic s)
        # or, wedged, until buffer/enable is written 0 (heard through `log`).
        self.asleep = False
        self.quiet_until = 0.0
        self.wedged = False
        self.log = None
        # The scan a hub that honours its hysteresis reported last (`reports`).
        self.reported = None
        # The raw reads a hub answers through the buffer ("raw-reads"), from the kernel log.
        self.raw_reads = None
        if spec.get("raw-reads") == "reported":
            log = os.path.join(self.root, "kernel.log")
            self.raw_reads = KernelLog(log, os.path.getsize(log) if os.path.exists(log) else 0)

    def fall_asleep(self):
        for sensor in [self] + self.companions:
            sensor.asleep = True

    def wake(self, events, hid, kernel_log, offset):
        """The resume: what the sensor and its driver come back with (see sleep.suspend)."""
        for sensor in [self] + self.companions:
            if sensor.events:
                sensor.events.wake(events == "lost", kernel_log, offset)
            if isinstance(hid, dict):
                sensor.quiet_until = time.monotonic() + hid["silent"] / 1000.0
            elif hid == "wedged":
                sensor.wedged = True
                sensor.log = KernelLog(kernel_log, offset)
            sensor.asleep = False

    def silent(self, now):
        """Whether the buffer hands nothing over now (asleep, or after the wake)."""
        if self.wedged:
            for device, attr, value in self.log.writes():
                if device == self.device and attr == "buffer/enable" and value.strip() == "0":
                    self.wedged = False
            if self.attr("buffer/enable") == "0":
                self.wedged = False
        return self.asleep or self.wedged or now < self.quiet_until

    def reports(self, counts):
        """Whether a scan of `counts` is handed over: always, but by a hub that honours its hysteresis, only a
        change from the last scan it reported larger than the hysteresis (in g) on some axis."""
        if self.spec.get("hysteresis") != "honoured":
            return True
        band = self.number("in_%s_hysteresis" % self.channel, 0.0)
        last = self.reported
        if band > 0 and last is not None and self.attr("buffer/enable") == "1" \
                and all(abs(a - b) * self.scale / 9.80665 <= band for a, b in zip(counts, last)):
            return False
        self.reported = list(counts)
        return True

    def answered(self):
        """How many raw reads of the sensor's channels the hub answered since the last call ("raw-reads")."""
        if self.raw_reads is None:
            return 0
        prefix = "in_%s_" % self.channel
        return sum(1 for device, attr in self.raw_reads.reads() if device == self.device and attr.startswith(prefix))

    def attr(self, name):
        try:
            with open(os.path.join(self.root, "sys/bus/iio/devices", self.device, name)) as f:
                return f.read().strip("\0\n ")
        except OSError:
            return None

    def number(self, name, default):
        try:
            return float(self.attr(name))
        except (TypeError, ValueError):
            return default

    def frequency(self):
        for name in ("sampling_frequency", "in_%s_sampling_frequency" % self.channel):
            value = self.attr(name)
            if value is not None:
                try:
                    return float(value)
                except ValueError:
                    return 0.0
        return float(self.spec.get("rate", 50))

    def counts(self, truth):
        """The raw counts the sensor reads for a device-frame value."""
        v = [sum(self.inverse[i][k] * truth[k] for k in range(3)) for i in range(3)]
        out = []
        for i in range(3):
            c = int(round(v[i] / self.scale - self.offset[i]))
            out.append(max(-self.limit, min(self.limit - 1, c)))
        return out

    def layout(self):
        """The enabled scan elements in scan order: (name, index, endian, signed, bits, storage, shift, repeat)."""
        elements = []
        directory = os.path.join(self.root, "sys/bus/iio/devices", self.device, "scan_elements")
        for entry in sorted(os.listdir(directory)):
            if not entry.endswith("_en") or self.attr("scan_elements/" + entry) != "1":
                continue
            name = entry[len("in_"):-len("_en")]
            index = int(self.attr("scan_elements/in_%s_index" % name))
            t = re.match(r"(le|be):([su])(\d+)/(\d+)(?:X(\d+))?>>(\d+)", self.attr("scan_elements/in_%s_type" % name))
            elements.append((name, index, t.group(1), t.group(2) == "s", int(t.group(3)), int(t.group(4)),
                             int(t.group(6)), int(t.group(5) or 1)))
        elements.sort(key=lambda e: e[1])
        return elements

    def pack(self, elements, values, stamp):
        """One scan: each element at an offset aligned to its storage size, the whole padded to the largest."""
        data = bytearray()
        largest = 1
        for name, _, endian, signed, bits, storage, shift, repeat in elements:
            size = storage // 8
            largest = max(largest, size)
            while len(data) % size:
                data.append(0)
            if name == "timestamp":
                value = stamp
            else:
                value = values.get(name, 0) << shift
            mask = (1 << storage) - 1
            word = value & ((1 << (bits + shift)) - 1)
            # Bits above the data are not the driver's to clear (hid-sensor copies a whole u32 for a 16-bit
            # field): fill them with a pattern a reader must mask off.
            if bits + shift < storage and name != "timestamp":
                word |= (0xA5A5A5A5A5A5A5A5 << (bits + shift)) & mask
            for _ in range(repeat):
                data += (word & mask).to_bytes(size, "little" if endian == "le" else "big")
        while len(data) % largest:
            data.append(0)
        return bytes(data)

    def run(self, truth_at, clock, seconds):
        axes = ("x", "y", "z")
        pending, count, cached, last_raw, enabled, last_hz = b"", 0, None, 0.0, False, None
        nxt = time.monotonic()
        while clock.elapsed(time.monotonic()) < seconds and not STOPPING.is_set():
            now = time.monotonic()
            raws = [(s.channel, s.counts(truth_at(clock.elapsed(now), s))) for s in [self] + self.companions]
            if now - last_raw >= 0.02:
                for channel, raw in raws:
                    for i, axis in enumerate(axes):
                        self.set_attr(self.device, "in_%s_%s_raw" % (channel, axis), raw[i])
                last_raw = now
            hz = self.frequency()
            if self.events and not self.asleep:
                self.events.check(now, raws[0][1], hz)
            if self.attr("buffer/enable") == "1" and hz > 0 and self.interrupt:
                if not enabled or hz != last_hz:
                    # A buffer enabled (again) starts sampling then, at the frequency set while it was off.
                    enabled, nxt, last_hz = True, now, hz
                if self.fd is None:
                    self.fd = self.tb.get_dev_fd("/dev/" + self.device)
                if cached is None:
                    cached = self.layout()
                values = {"%s_%s" % (channel, axis): raw[i] for channel, raw in raws for i, axis in enumerate(axes)}
                if self.silent(now):
                    # Asleep, or a buffer silent after the wake: the scans due now never come.
                    pending, count = b"", 0
                    self.answered()
                else:
                    scans = self.answered() + (1 if self.reports(raws[0][1]) else 0)
                    for _ in range(scans):
                        pending += self.pack(cached, values, time.time_ns())
                    count += scans
                if count >= max(1, int(self.number("buffer/watermark", 1))):
                    try:
                        os.write(self.fd, pending)
                    except OSError:
                        pass
                    pending, count = b"", 0
                nxt += 1.0 / hz
            else:
                pending, count, cached, enabled = b"", 0, None, False
                self.answered()
                nxt += 0.02
            # Sleep in short steps, so that disabling the buffer (to change the frequency) is noticed at once.
            while time.monotonic() < nxt and (not enabled or (self.attr("buffer/enable") == "1" and self.frequency() == hz)):
                time.sleep(min(0.02, max(0.0, nxt - time.monotonic())))
            if nxt < time.monotonic() - 0.5:
                nxt = time.monotonic()


def invert3(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


