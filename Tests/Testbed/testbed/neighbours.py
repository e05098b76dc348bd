"""Neighbours: processes started beside PROGRAM that share its devices: iio-sensor-proxy (with a private system
bus) and monitor-sensor, and raw pollers (../raw-poller.py)."""
import ctypes
import os
import re
import signal
import subprocess
import sys
import threading
import time

from . import results
from .common import HERE, Failure, Stream
from .kernel import kernel_environment

# Processes started beside PROGRAM (iio-sensor-proxy, its bus, monitor-sensor, raw pollers): all ended when the
# driver ends, however it ends.
NEIGHBOURS = []

SENSOR_PROXY_RULES = ["/usr/lib/udev/rules.d/80-iio-sensor-proxy.rules", "/lib/udev/rules.d/80-iio-sensor-proxy.rules"]

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""


def end_neighbours():
    """SIGTERM every neighbour still running, then SIGKILL one that has not gone within 3 s."""
    for p in reversed(NEIGHBOURS):
        if p.poll() is None:
            try:
                p.terminate()
            except OSError:
                pass
    deadline = time.monotonic() + 3
    for p in reversed(NEIGHBOURS):
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def start_neighbour(argv, env):
    """Starts a neighbour process with its stdout and stderr piped; it is sent SIGKILL if the driver dies first."""
    libc = ctypes.CDLL(None, use_errno=True)

    def die_with_driver():
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        # A test process may run the driver with signals blocked or ignored; a neighbour must end on SIGTERM.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)

    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                         preexec_fn=die_with_driver)
    NEIGHBOURS.append(p)
    return p


def outside_environment():
    """The environment of a process outside the testbed: without umockdev's LD_PRELOAD and UMOCKDEV_DIR."""
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}


def _proxy_rules():
    """(TEST files, type) of each line of the installed 80-iio-sensor-proxy.rules that sets a type."""
    path = next((p for p in SENSOR_PROXY_RULES if os.path.exists(p)), None)
    if path is None:
        raise Failure("iio-sensor-proxy's udev rules are not installed (%s)" % SENSOR_PROXY_RULES[0])
    rules = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith('SUBSYSTEM=="iio"'):
                continue
            tests = re.findall(r'TEST=="([^"]+)"', line)
            kind = re.search(r'ENV\{IIO_SENSOR_PROXY_TYPE\}\+="([^"]+)"', line)
            if kind and tests:
                rules.append((tests, kind.group(1)))
    return rules


def sensor_proxy_types(root):
    """IIO_SENSOR_PROXY_TYPE of each emulated IIO device, as iio-sensor-proxy's udev rules would set it: each line of
    the installed rules file that matches SUBSYSTEM=="iio" and TEST=="FILE"s appends its type (ENV{...}+= joins
    with a space). umockdev runs no udev rules, so the testbed's devices lack what the rules would add.
    Returns {device id: (devpath, types)}, devices the rules give no type left out."""
    rules = _proxy_rules()
    found = {}
    devices = os.path.join(root, "sys/bus/iio/devices")
    for name in sorted(os.listdir(devices)):
        directory = os.path.realpath(os.path.join(devices, name))
        types = [kind for tests, kind in rules if all(os.path.exists(os.path.join(directory, t)) for t in tests)]
        if types:
            found[name] = ("/" + os.path.relpath(directory, root), " ".join(types))
    return found


def beside(run):
    """The run's neighbours, made at the first step that needs them."""
    if run.neighbours is None:
        run.neighbours = Neighbours(run.tb, run.root, kernel_environment(run.root, run.rules, run.neighbours_log))
    return run.neighbours


class Neighbours:
    """iio-sensor-proxy, with a private system bus of its own, inside the testbed beside PROGRAM, and a
    `monitor-sensor --accel` claiming its accelerometer; raw pollers.

    iio-sensor-proxy and the pollers run under the same libraries as PROGRAM (iio-kernel.so in front of umockdev's,
    the fixture's kernel rules), so the kernel's refusals apply to them as to PROGRAM, each node open included; their
    sysfs writes and refusals go to a log of their own, printed at the end as "neighbours-kernel: LINE".
    monitor-sensor only talks D-Bus and runs outside the testbed."""

    ORIENTATION = re.compile(r"(?:Accelerometer orientation changed: |=== Has accelerometer \(orientation: )([a-z-]+)")
    POLLER_ERROR = re.compile(r"^raw-poller: (\S+) (\S+) at ([0-9.]+)$")
    POLLER_SUMMARY = re.compile(r"^raw-poller: (\d+) reads, (\d+) EBUSY, (\d+) other errors$")

    def __init__(self, tb, root, env):
        self.tb, self.root, self.env = tb, root, env
        self.monitor = None
        self.proxy = None
        self.proxy_out = self.proxy_err = None
        self.pollers = []

    def _start_bus(self):
        """Starts the private system bus; returns its address."""
        bus_dir = os.path.join(self.root, "neighbours")
        os.makedirs(bus_dir, exist_ok=True)
        config = os.path.join(bus_dir, "system-bus.conf")
        with open(config, "w") as f:
            f.write(BUS_CONFIG)
        bus = start_neighbour(["dbus-daemon", "--config-file=" + config, "--nofork", "--nopidfile", "--print-address=1"],
                              outside_environment())
        address = bus.stdout.readline().decode().strip()
        if not address:
            raise Failure("the private system bus did not start: %s" % bus.stderr.read().decode(errors="replace"))
        return address

    def start_proxy(self, seconds):
        for device, (devpath, types) in sensor_proxy_types(self.root).items():
            self.tb.set_property(devpath, "IIO_SENSOR_PROXY_TYPE", types)
            results.say("sensor-proxy: %s IIO_SENSOR_PROXY_TYPE=%s" % (device, types), "sensor-proxy-type",
                        device=device, types=types.split())
        address = self._start_bus()
        self.env = dict(self.env, DBUS_SYSTEM_BUS_ADDRESS=address)
        self.proxy = start_neighbour(["/usr/sbin/iio-sensor-proxy"], self.env)
        self.proxy_out = Stream(self.proxy.stdout)
        self.proxy_err = Stream(self.proxy.stderr)
        monitor_env = dict(outside_environment(), DBUS_SYSTEM_BUS_ADDRESS=address)
        self.monitor = Stream(start_neighbour(["stdbuf", "-oL", "monitor-sensor", "--accel"], monitor_env).stdout)
        threading.Thread(target=self._announce_ready, daemon=True).start()
        self._await_accelerometer(seconds)

    def _await_accelerometer(self, seconds):
        """Waits for monitor-sensor to say whether iio-sensor-proxy has an accelerometer; fails unless it has."""
        rx = re.compile(r"=== (Has|No) accelerometer")
        deadline = time.monotonic() + seconds
        with self.monitor.cond:
            while True:
                seen = [line for line in self.monitor.lines if rx.search(line)]
                if seen:
                    if "No accelerometer" in seen[0]:
                        raise Failure("iio-sensor-proxy has no accelerometer: %s" % " / ".join(self.proxy_err.lines))
                    return
                if self.proxy.poll() is not None:
                    raise Failure("iio-sensor-proxy exited with status %s" % self.proxy.returncode)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure("monitor-sensor saw no accelerometer within %ss" % seconds)
                self.monitor.cond.wait(min(left, 0.2))

    def _announce_ready(self):
        """Prints "sensor-proxy: ready at T (ORIENTATION)" once monitor-sensor reports a first orientation."""
        with self.monitor.cond:
            while True:
                for when, orientation in self.orientations():
                    if orientation != "undefined":
                        results.say("sensor-proxy: ready at %.6f (%s)" % (when, orientation), "sensor-proxy-ready",
                                    at=when, orientation=orientation)
                        return
                self.monitor.cond.wait(1)

    def orientations(self):
        """(arrival on CLOCK_MONOTONIC, orientation) of each monitor-sensor line that gives one."""
        out = []
        for when, line in self.monitor.timed():
            m = self.ORIENTATION.search(line)
            if m:
                out.append((when, m.group(1)))
        return out

    def wait(self, pattern, seconds):
        if self.monitor is None:
            raise Failure("no sensor-proxy step ran before")
        self.monitor.wait(pattern, seconds)

    def start_poller(self, device, interval):
        p = start_neighbour([sys.executable, os.path.join(HERE, "raw-poller.py"), device, str(interval)], self.env)
        self.pollers.append((device, p, Stream(p.stdout), Stream(p.stderr)))

    def end(self):
        """Ends the pollers (each prints its counts), then the others; prints what they said on stderr."""
        self._end_pollers()
        end_neighbours()
        if self.monitor is not None:
            self.monitor.thread.join(5)
            for when, orientation in self.orientations():
                results.say("sensor-proxy: %.6f %s" % (when, orientation), "sensor-proxy-orientation", at=when,
                            orientation=orientation)
        for stream, name in ((self.proxy_out, "stdout"), (self.proxy_err, "stderr")):
            if stream is not None:
                stream.thread.join(5)
                for when, line in stream.timed():
                    results.say("iio-sensor-proxy: " + line, "neighbour-output", name="iio-sensor-proxy",
                                stream=name, line=line, at=when)
        if self.monitor is not None:
            for when, line in self.monitor.timed():
                results.say("monitor-sensor: %.6f %s" % (when, line.strip()), "neighbour-output",
                            name="monitor-sensor", stream="stdout", line=line, at=when)

    def _end_pollers(self):
        for _, p, _, _ in self.pollers:
            if p.poll() is None:
                p.terminate()
        for device, p, out, err in self.pollers:
            try:
                # A raw read can sleep a few periods of a low sampling frequency in the driver (st_accel: two per
                # axis, 2 s each at 1 Hz, the frequency rotationd puts back when it stops).
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            out.thread.join(5)
            err.thread.join(5)
            for when, line in out.timed():
                results.say(line, "neighbour-output", name="raw-poller", stream="stdout", line=line, at=when)
                self._poller_result(device, line)
            for when, line in err.timed():
                results.say("raw-poller: stderr: " + line, "neighbour-output", name="raw-poller", stream="stderr",
                            line=line, at=when)

    def _poller_result(self, device, line):
        m = self.POLLER_ERROR.match(line)
        if m:
            results.emit("raw-poller-error", device=device, errno=m.group(1), attribute=m.group(2),
                         at=float(m.group(3)))
        m = self.POLLER_SUMMARY.match(line)
        if m:
            results.emit("raw-poller-summary", device=device, reads=int(m.group(1)), ebusy=int(m.group(2)),
                         other=int(m.group(3)))


def sensor_proxy(run, seconds=15):
    """["sensor-proxy", SECONDS]
    Start the real iio-sensor-proxy beside PROGRAM (whether PROGRAM runs yet or not) and `monitor-sensor --accel`
    claiming its accelerometer; wait up to SECONDS (15 when left out) for monitor-sensor to report one, and fail
    if it reports none. Each emulated IIO device first gets the IIO_SENSOR_PROXY_TYPE that the installed
    80-iio-sensor-proxy.rules would give it (umockdev runs no udev rules), printed as "sensor-proxy: DEVICE
    IIO_SENSOR_PROXY_TYPE=TYPES". iio-sensor-proxy runs inside the testbed under PROGRAM's libraries and kernel
    rules (a raw read it makes while a raw-busy buffer runs fails, a node open while another holds the node
    fails) with a private system bus that monitor-sensor, outside the testbed, talks to. Prints "sensor-proxy:
    ready at T (ORIENTATION)" when monitor-sensor first reports an orientation other than undefined; when the
    driver ends, "sensor-proxy: T ORIENTATION" for each orientation monitor-sensor reported (T its arrival on
    CLOCK_MONOTONIC), then iio-sensor-proxy's own output as "iio-sensor-proxy: LINE" and monitor-sensor's as
    "monitor-sensor: T LINE"."""
    beside(run).start_proxy(seconds)


def wait_proxy(run, pattern, seconds):
    """["wait-proxy", REGEX, SECONDS]
    Wait for a monitor-sensor line matching REGEX after the last match."""
    beside(run).wait(pattern, seconds)


def raw_poller(run, device, interval):
    """["raw-poller", DEVICE, INTERVAL]
    In the background, read DEVICE's in_accel_x_raw, in_accel_y_raw and in_accel_z_raw every INTERVAL s as a
    polling neighbour (rot8) does (Tests/Testbed/raw-poller.py), inside the testbed under PROGRAM's libraries and
    kernel rules; each failed read is printed as "raw-poller: EBUSY ATTR at T", and when the driver ends
    "raw-poller: N reads, M EBUSY, K other errors"."""
    beside(run).start_poller(device, interval)
