"""The trace player: a played trace's clock, its gates (holds) and the "play" steps."""
import bisect
import json
import os
import threading
import time

from . import results
from .common import FIXTURES, STOPPING, Clock, Failure, write_atomically
from .emulated import EmulatedSensor

# The wait verbs a "hold_until" condition may name, and the streams they look at.
HOLD_VERBS = ("wait", "wait-err", "wait-sock", "wait-proxy")


class TraceClock:
    """A played trace's time: the seconds since the "play" step started it, less the time it was held at a gate.

    Each "suspend" step with "at" after the "play" step is a gate: the trace stands at that time until the program
    is asleep, so that whatever the trace does after it happens while asleep, however late a loaded machine brings
    the sleep. A "hold_until" is a gate at 0."""

    def __init__(self, start, gates):
        self.start = start
        self.lock = threading.Lock()
        self.held = 0.0
        self.gates = sorted(gates)
        self.holding = threading.Event()   # set while a hold_until condition is pending

    def release(self):
        """Opens the first gate; returns how long the trace stood at it, s."""
        with self.lock:
            if not self.gates:
                return 0.0
            over = max(0.0, time.monotonic() - self.start - self.held - self.gates.pop(0))
            self.held += over
            return over

    def elapsed(self, now):
        with self.lock:
            t = now - self.start - self.held
            return min(t, self.gates[0]) if self.gates else t


def load_trace(path):
    """A trace's times and rows, and the columns it has: {name: index in a row} for x, y, z and any of gx, gy, gz
    (the gyroscope) and bx, by, bz (a convertible's base)."""
    times, rows = [], []
    with open(path) as f:
        header = next(f).strip().split(",")
        for line in f:
            values = [float(v) for v in line.strip().split(",")]
            times.append(values[0])
            rows.append(values[1:])
    return times, rows, {name: i - 1 for i, name in enumerate(header) if i > 0}


def truth(times, rows, columns):
    """The device-frame truth a sensor reads T s into the trace, looping. A base sensor reads in the frame systemd's
    hwdb asks of a base (the display's with the lid closed): a trace's bx, by, bz are in the frame in which opened
    flat reads as the display (../shared/traces-posture/README.md), so (bx, by, bz) is read as (bx, -by, -bz);
    without those columns the keyboard lies flat, face up: (0, 0, -g)."""
    span = times[-1] - times[0] + (times[1] - times[0])
    gravity = 9.80665

    def take(row, names):
        return [row[columns[n]] for n in names] if all(n in columns for n in names) else None

    def truth_at(t, sensor):
        k = max(bisect.bisect_right(times, times[0] + t % span) - 1, 0)
        row = rows[k]
        if sensor.spec.get("location", "display") == "base":
            if sensor.channel != "accel":
                return [0.0, 0.0, 0.0]
            base = take(row, ("bx", "by", "bz"))
            return [base[0], -base[1], -base[2]] if base else [0.0, 0.0, -gravity]
        if sensor.channel == "accel":
            return take(row, ("x", "y", "z"))
        return take(row, ("gx", "gy", "gz")) or [0.0, 0.0, 0.0]
    return truth_at


def make_sensors(tb, set_attr, zoo):
    """One EmulatedSensor per described device; an accelerometer and a gyroscope sharing one IIO device are one that
    scans both (the second a companion of the first)."""
    emulated = {}
    for device, spec in zoo.items():
        for sensor_spec in spec if isinstance(spec, list) else [spec]:
            sensor = EmulatedSensor(tb, set_attr, device, sensor_spec)
            sensor.companions = []
            if device in emulated:
                emulated[device].companions.append(sensor)
            else:
                emulated[device] = sensor
    return list(emulated.values())


def play(run, trace, seconds, options=None):
    """["play", TRACE, SECONDS, OPTIONS]
    In the background, play a trace (t,x,y,z[,gx,gy,gz][,bx,by,bz], device frame, a base's as in
    ../shared/traces-posture; relative to Tests/fixtures) into every
    emulated sensor the fixture's sidecar (X.json beside X.umockdev) describes, as the hardware would (emulated.EmulatedSensor).
    Prints "play: started at T" (T on PROGRAM's CLOCK_MONOTONIC) and writes the time the trace left its time 0 to
    the file named by PROGRAM's PLAY_STARTED_FILE. OPTIONS (optional) is {"hold_until": [WAITVERB, REGEX,
    TIMEOUT]}, WAITVERB one of wait, wait-err, wait-sock, wait-proxy: the trace then stands at its time 0 (its
    first pose) until a line of that stream matches REGEX (any line since the stream began, checked in the
    background while the following steps run; the wait steps' own cursors are not moved), then plays on and
    prints "play: held S s at 0.000 s into the trace"; a condition not met within TIMEOUT s of this step, or by
    the end of the steps, fails the run."""
    options = options or {}
    if not isinstance(options, dict) or set(options) - {"hold_until"}:
        raise Failure("options must be an object with no other key than hold_until")
    condition = options.get("hold_until")
    if condition is not None and (not isinstance(condition, list) or len(condition) != 3
                                  or condition[0] not in HOLD_VERBS):
        raise Failure("hold_until must be [WAITVERB, REGEX, TIMEOUT], WAITVERB one of %s" % ", ".join(HOLD_VERBS))
    later = run.actions[run.index + 1:]
    gates = [s[2]["at"] for s in later if s[0] == "suspend" and len(s) > 2 and "at" in s[2]]
    gates += [0.0] if condition is not None else []
    truth_at = truth(*load_trace(os.path.join(FIXTURES, trace)))
    sensors = make_sensors(run.tb, run.set_attr, run.zoo)
    start = time.monotonic()
    clock = TraceClock(start, gates)
    results.say("play: started at %.6f" % (start - Clock.slept), "play-started", at=start - Clock.slept, trace=trace)
    run.emulated[:] = sensors
    for sensor in sensors:
        threading.Thread(target=sensor.run, args=(truth_at, clock, seconds), daemon=True).start()
    run.clock = clock
    if condition is None:
        write_atomically(run.play_started, "%.6f\n" % (start - Clock.slept))
    else:
        run.holds.append(Hold(run, clock, condition, run.step))


class Hold:
    """A trace standing at its time 0 until a hold_until condition is met, watched in the background."""

    def __init__(self, run, clock, condition, step):
        self.run, self.clock, self.condition, self.step = run, clock, condition, step
        self.lock = threading.Lock()
        self.done = False
        clock.holding.set()
        self.deadline = time.monotonic() + condition[2]
        threading.Thread(target=self._watch, daemon=True).start()

    def streams(self):
        run, verb = self.run, self.condition[0]
        if verb == "wait":
            return [run.out] if run.out else []
        if verb == "wait-err":
            return [run.err] if run.err else []
        if verb == "wait-sock":
            return list(run.sock_streams)
        monitor = run.neighbours.monitor if run.neighbours else None
        return [monitor] if monitor else []

    def try_release(self):
        """Lets the trace play on if the condition is met now; returns whether the hold is over."""
        with self.lock:
            if self.done:
                return True
            if not any(s.seen(self.condition[1]) for s in self.streams()):
                return False
            self.done = True
        over = self.clock.release()
        self.clock.holding.clear()
        results.say("play: held %.6f s at %.3f s into the trace" % (over, 0.0), "play-held", seconds=over,
                    at_trace=0.0, until=self.condition)
        write_atomically(self.run.play_started, "%.6f\n" % (self.clock.start + self.clock.held - Clock.slept))
        return True

    def fail(self, why):
        with self.lock:
            if self.done:
                return
            self.done = True
        self.run.fail_later(self.step, "hold_until %s not met %s" % (json.dumps(self.condition), why))

    def _watch(self):
        while not STOPPING.is_set() and not self.try_release():
            if time.monotonic() > self.deadline:
                self.fail("within %ss" % self.condition[2])
                return
            time.sleep(0.01)

    def settle(self):
        """At the end of the steps: the condition is met now, or it fails the run."""
        if not self.try_release():
            self.fail("by the end of the steps")


def wait_play(run, seconds):
    """["wait-play", SECONDS]
    Sleep until SECONDS after the "play" step started its trace, plus the time the trace was held (by a
    hold_until, or for a late "suspend"); while a hold_until is pending, wait for it first."""
    clock = _clock(run)
    while clock.holding.is_set() and not run.late_failure:
        time.sleep(0.01)
    time.sleep(max(0.0, clock.start + seconds + clock.held - time.monotonic()))


def _clock(run):
    if run.clock is None:
        raise Failure("no play step ran before")
    return run.clock
