"""A sensor's motion event, raised into the FIFO the emulated kernel hands out as the device's event descriptor."""
import os
import struct
import time

from .kernel import KernelLog


class MotionEvent:
    """A sensor's motion event, raised as its hardware and driver would, into the FIFO that the emulated kernel (Tests/Testbed/kernel) hands out
    as the device's event descriptor (iio-events/DEVICE under the testbed root).

    The spec (a device's "events" in the sidecar) says what the hardware compares and what the driver reports:
      "enable":    {AXIS: FILE}: the enable of each axis ("x", "y", "z"), or {"x|y|z": FILE} for one event channel
      "value":     the threshold's file; "unit": m/s² per unit of it, or "per-second" (m/s² per second: the change
                   between two samples times the sampling frequency)
      "detector":  "slope": the change between two successive samples at the sensor's sampling frequency (bmc150's
                   slope, inv_mpu6050's wake-on-motion, the high-passed wake-up and transient functions);
                   "reference": the change from the reading when the event was enabled, or last fired
                   (bmi323's any-motion)
      "type":      "thresh", "mag" or "roc"; "direction": "either", "rising", or "sign" (rising or falling by the
                   change's sign)
    Files are under the device's directory. An event fires on an enabled axis whose change exceeds the threshold,
    while the sensor is powered (iio-events/DEVICE.powered, when the emulated kernel (Tests/Testbed/kernel) keeps one, reads 1) and a descriptor
    is open (else the FIFO has no reader and nothing is queued, as in the kernel).
    """

    TYPES = {"thresh": 0, "mag": 1, "roc": 2}
    DIRECTIONS = {"either": 0, "rising": 1, "falling": 2}
    MODIFIERS = {"x": 1, "y": 2, "z": 3, "x|y|z": 11}
    IIO_ACCEL = 3

    def __init__(self, sensor, spec):
        self.sensor, self.spec = sensor, spec
        self.root = sensor.root
        self.fifo = os.path.join(self.root, "iio-events", sensor.device)
        self.fd = None
        self.last_check = 0.0
        self.previous = None
        self.reference = None
        self.was_enabled = False
        # After a suspend that lost the event's configuration: the kernel log, until an enable is written 0 then 1.
        self.lost = None
        self.zeroed = False

    def wake(self, lost, kernel_log, offset):
        """The resume: the detector starts afresh (no previous sample); with LOST the sensor forgot the event while
        its enable files still read 1, until one is written 0 and then 1."""
        self.previous = None
        self.was_enabled = False
        self.lost = KernelLog(kernel_log, offset) if lost else None
        self.zeroed = False

    def still_lost(self):
        files = set(self.spec["enable"].values())
        for device, attr, value in self.lost.writes():
            if device != self.sensor.device or attr not in files:
                continue
            if value.strip() == "0":
                self.zeroed = True
            elif value.strip() == "1" and self.zeroed:
                self.lost = None
                self.was_enabled = False
                return False
        return True

    def enabled_axes(self):
        return [axis for axis, f in self.spec["enable"].items() if self.sensor.attr(f) == "1"]

    def powered(self):
        try:
            with open(self.fifo + ".powered") as f:
                return f.read().strip() != "0"
        except OSError:
            return True

    def threshold(self, hz):
        """The threshold in m/s² of change between two samples (or from the reference)."""
        try:
            value = float(self.sensor.attr(self.spec["value"]))
        except (TypeError, ValueError):
            return None
        unit = self.spec["unit"]
        return value / hz if unit == "per-second" else value * unit

    def raise_event(self, modifier, direction):
        code = (self.TYPES[self.spec["type"]] << 56) | (direction << 48) | (modifier << 40) | (self.IIO_ACCEL << 32)
        record = struct.pack("<Qq", code, time.time_ns())
        try:
            if self.fd is None:
                self.fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.write(self.fd, record)
        except OSError:
            # No descriptor open (ENXIO), or it was closed since (EPIPE): the kernel drops the event.
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None

    def check(self, now, counts, hz):
        """Samples the sensor at its frequency and raises an event for each enabled axis over the threshold."""
        if hz <= 0 or now - self.last_check < 1.0 / hz:
            return
        self.last_check = now
        value = [counts[i] * self.sensor.scale for i in range(3)]
        axes = self.enabled_axes()
        on = bool(axes) and self.powered() and not (self.lost and self.still_lost())
        if on and not self.was_enabled:
            self.reference = value
        self.was_enabled = on
        before = self.reference if self.spec["detector"] == "reference" else self.previous
        self.previous = value
        limit = self.threshold(hz)
        if not on or before is None or limit is None:
            return
        fired = False
        for axis in axes:
            changes = [value[i] - before[i] for i in range(3)] if axis == "x|y|z" else [value["xyz".index(axis)] - before["xyz".index(axis)]]
            change = max(changes, key=abs)
            if abs(change) <= limit:
                continue
            direction = self.spec["direction"]
            if direction == "sign":
                direction = "rising" if change > 0 else "falling"
            self.raise_event(self.MODIFIERS[axis], self.DIRECTIONS[direction])
            fired = True
        if fired:
            self.reference = value


