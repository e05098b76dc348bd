"""Input switches: an evdev node with the tablet-mode and lid switches, its state answered to EVIOCGSW and friends
through umockdev, and each change written into its PTY as the kernel's evdev hands events to a reader; uinput, for
a program that makes such a switch itself; and a probe that reads a node's switches back through evdev."""
import errno
import json
import os
import select
import struct
import subprocess
import threading
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

from . import results  # noqa: E402
from .common import Failure, give, program_monotonic  # noqa: E402

from .evdev import BUS_HOST, BUS_VIRTUAL, EV_SW, EV_SYN, EVENT, SYN_REPORT, Evdev, forget_database, udev_database  # noqa: E402

SWITCHES = {"lid": 0x00, "tablet-mode": 0x01}   # SW_LID, SW_TABLET_MODE


def _code(name):
    if name not in SWITCHES:
        raise Failure("unknown switch %r: one of %s" % (name, ", ".join(sorted(SWITCHES))))
    return SWITCHES[name]


def switches(run, node, name, states, bus=BUS_HOST):
    """["switches", NODE, NAME, {SWITCH: 0|1, ...}]
    Emulate an evdev device at NODE (an input device's event node of the umockdev file, with an empty N: line)
    named NAME reporting the switches in STATES ("tablet-mode", "lid") in those states: EVIOCGSW, EVIOCGBIT,
    EVIOCGNAME, EVIOCGID and the rest of what libevdev asks answer as the kernel's evdev would (testbed/evdev.py);
    "switch" steps change them."""
    handler = Evdev(name, {_code(k): 1 if v else 0 for k, v in states.items()}, bus=bus)
    run.sensors[node] = handler
    run.tb.attach_ioctl(node, handler)
    if run.user is not None:
        give(os.path.join(run.root, "ioctl"), run.user, recursive=True)


def switch(run, node, name, value):
    """["switch", NODE, SWITCH, 0|1]
    Change one switch of a "switches" device: its EVIOCGSW state, and an EV_SW event and an EV_SYN report written
    into the node's PTY, as the kernel's evdev queues them for every reader (timestamped on CLOCK_REALTIME)."""
    handler = run.sensors.get(node)
    if not isinstance(handler, Evdev) or not handler.states:
        raise Failure("%s is not an emulated switch device: a \"switches\" step comes first" % node)
    code = _code(name)
    if code not in handler.states:
        raise Failure("%s does not report %s" % (node, name))
    handler.states[code] = 1 if value else 0
    now = time.time()
    sec, usec = int(now), int((now - int(now)) * 1e6)
    # Its time is taken before the write: once written, the program may read it and answer before this thread
    # runs again.
    queued = program_monotonic()
    os.write(run.tb.get_dev_fd(node),
             struct.pack(EVENT, sec, usec, EV_SW, code, handler.states[code]) + struct.pack(EVENT, sec, usec, EV_SYN, SYN_REPORT, 0))
    results.say("switch: %s %s %d" % (node, name, handler.states[code]), "switch", node=node, switch=name,
                value=handler.states[code], at=queued)


# linux/uinput.h: the ioctls of type 'U' a program making a switch device issues.
UI_DEV_CREATE, UI_DEV_DESTROY, UI_DEV_SETUP, UI_SET_EVBIT, UI_SET_SWBIT = 1, 2, 3, 100, 109
UINPUT_SETUP = "<HHHH80sI"   # struct uinput_setup: struct input_id, name[UINPUT_MAX_NAME_SIZE], ff_effects_max
EVENT_SIZE = struct.calcsize(EVENT)
NAMES = {code: name for name, code in SWITCHES.items()}


class UInput(UMockdev.IoctlBase):
    """/dev/uinput as drivers/input/misc/uinput.c answers a program that makes a switch device: UI_SET_EVBIT and
    UI_SET_SWBIT collect the event types and switch codes, UI_DEV_SETUP the name, UI_DEV_CREATE registers the
    device (an inputN under /sys/devices/virtual/input with its eventN node, whose ioctls are answered as a
    "switches" device's), UI_DEV_DESTROY removes it and forgets its bits and name, so that a device made again on
    the same descriptor must be declared again. Setting bits after the device is created, creating it twice
    or before UI_DEV_SETUP fail with EINVAL, as uinput's do. The events the program writes reach the node as the
    input core passes them on: a switch event only where it changes the state, each report ending a batch; those
    written before UI_DEV_DESTROY reach it before the device goes, as uinput's write() delivers them at once. As
    the kernel, udevd and uinput_release do: a device registered has udev's database entry before its "add"
    uevent, goes with "remove" uevents for its eventN and inputN, and goes when the program closes its last
    descriptor of /dev/uinput (exiting, or killed) without destroying it."""

    def __init__(self, run):
        super().__init__()
        self.run = run
        self.evbits, self.swbits = set(), set()
        self.name = None
        self.device = self.node = self.devnum = None
        self.lock = threading.RLock()
        self.pending, self.batch = b"", []
        self.opened = False

    def do_handle_ioctl(self, client):
        request, arg = client.get_request(), client.get_arg()
        kind, nr = (request >> 8) & 0xFF, request & 0xFF
        if kind != ord("U"):
            client.complete(-1, errno.ENOTTY)
            return True
        if nr in (UI_SET_EVBIT, UI_SET_SWBIT, UI_DEV_SETUP, UI_DEV_CREATE) and self.device is not None:
            client.complete(-1, errno.EINVAL)
            return True
        if nr in (UI_SET_EVBIT, UI_SET_SWBIT):
            value = struct.unpack("<Q", bytes(arg.retrieve()))[0]
            (self.evbits if nr == UI_SET_EVBIT else self.swbits).add(value)
        elif nr == UI_DEV_SETUP:
            fields = struct.unpack(UINPUT_SETUP, bytes(arg.resolve(0, struct.calcsize(UINPUT_SETUP)).retrieve()))
            self.name = fields[4].split(b"\0")[0].decode(errors="replace")
        elif nr == UI_DEV_CREATE:
            if self.name is None:
                client.complete(-1, errno.EINVAL)
                return True
            with self.lock:
                self._create()
        elif nr == UI_DEV_DESTROY:
            if self.device is None:
                client.complete(-1, errno.EINVAL)
                return True
            with self.lock:
                self._destroy()
        else:
            client.complete(-1, errno.ENOTTY)
            return True
        client.complete(0, 0)
        return True

    def _create(self):
        """Registers the device: the lowest free inputN and eventN, as the input core numbers them."""
        root = self.run.root
        taken = lambda *paths: any(os.path.lexists(os.path.join(root, p)) for p in paths)  # noqa: E731
        n = next(i for i in range(1000) if not taken("sys/devices/virtual/input/input%d" % i, "sys/class/input/input%d" % i))
        m = next(i for i in range(1000) if not taken("dev/input/event%d" % i, "sys/class/input/event%d" % i))
        ev = sum(1 << b for b in self.evbits | {EV_SYN})
        sw = sum(1 << b for b in self.swbits)
        self.device = "/sys/devices/virtual/input/input%d" % n
        self.node = "/dev/input/event%d" % m
        self.devnum = "13:%d" % (64 + m)
        switches(self.run, self.node, self.name, {NAMES[c]: 0 for c in self.swbits if c in NAMES}, bus=BUS_VIRTUAL)
        udev_database(self.run, self.devnum, dict({"ID_INPUT": "1"}, **({"ID_INPUT_SWITCH": "1"} if sw else {})))
        self.run.tb.add_from_string(
            "P: /devices/virtual/input/input%d\nE: SUBSYSTEM=input\nE: PRODUCT=6/0/0/0\nE: NAME=\"%s\"\n"
            "A: name=%s\\n\nA: phys=\\n\nA: capabilities/ev=%x\\n\nA: capabilities/sw=%x\\n\n\n"
            "P: /devices/virtual/input/input%d/event%d\nN: input/event%d\nE: DEVNAME=/dev/input/event%d\n"
            "E: SUBSYSTEM=input\nE: MAJOR=13\nE: MINOR=%d\nE: ID_INPUT=1\n%sA: dev=13:%d\\n\n"
            % (n, self.name, self.name, ev, sw, n, m, m, m, 64 + m, "E: ID_INPUT_SWITCH=1\n" if sw else "", 64 + m))
        self.run.uinput_node = self.node
        results.say("uinput: created %s \"%s\" reporting %s" % (self.node, self.name, ", ".join(NAMES.get(c, str(c)) for c in sorted(self.swbits))),
                    "uinput-created", node=self.node, name=self.name,
                    switches=[NAMES.get(c, str(c)) for c in sorted(self.swbits)], at=program_monotonic())

    def _destroy(self, why=""):
        """Unregisters the device, once what the program wrote before has reached it: "remove" uevents, then the
        device and its database entry go; as uinput frees it, the next one starts with no bits and no name."""
        self._pass_on()
        for path in (self.device + "/" + os.path.basename(self.node), self.device):
            self.run.tb.uevent(path, "remove")
        self.run.tb.remove_device(self.device)
        forget_database(self.run, self.devnum)
        results.say("uinput: destroyed %s%s" % (self.node, why), "uinput-destroyed", node=self.node, at=program_monotonic())
        self.device = None
        self.evbits, self.swbits = set(), set()
        self.name = None

    def relay(self):
        """Passes on what the program writes to /dev/uinput to the device's node; runs on its own thread for the
        whole run. A PTY read fails with EIO while no program has the node open: once the program that made the
        device has closed it, the device goes, as uinput_release destroys it."""
        fd = self.run.tb.get_dev_fd("/dev/uinput")
        os.set_blocking(fd, False)
        while True:
            select.select([fd], [], [], 0.05)
            if not self._pass_on():
                with self.lock:
                    if self.device is not None and self.opened:
                        self._destroy(" (its program closed /dev/uinput)")
                time.sleep(0.01)

    def _pass_on(self):
        """Reads and passes on what the program wrote so far; False when no program has /dev/uinput open."""
        fd = self.run.tb.get_dev_fd("/dev/uinput")
        with self.lock:
            while True:
                try:
                    data = os.read(fd, EVENT_SIZE * 16)
                except BlockingIOError:
                    self.opened = True
                    return True
                except OSError:
                    return False
                self.opened = True
                self.pending += data
                while len(self.pending) >= EVENT_SIZE:
                    event, self.pending = struct.unpack(EVENT, self.pending[:EVENT_SIZE]), self.pending[EVENT_SIZE:]
                    self.batch = self._event(event[2], event[3], event[4], self.batch)

    def _event(self, kind, code, value, batch):
        """One event written: a switch's change is queued, a report hands the queue to the node's readers."""
        handler = self.run.sensors.get(self.node) if self.node else None
        if kind == EV_SW and isinstance(handler, Evdev) and code in handler.states:
            changed = handler.states[code] != (1 if value else 0)
            handler.states[code] = 1 if value else 0
            results.say("uinput: %s %s %d%s" % (self.node, NAMES.get(code, code), value, "" if changed else " (unchanged)"),
                        "uinput-event", node=self.node, switch=NAMES.get(code, str(code)), value=value,
                        changed=changed, at=program_monotonic())
            if changed:
                batch.append((kind, code, handler.states[code]))
        elif kind == EV_SYN and code == SYN_REPORT:
            if batch and handler is not None:
                now = time.time()
                sec, usec = int(now), int((now - int(now)) * 1e6)
                out = b"".join(struct.pack(EVENT, sec, usec, k, c, v) for k, c, v in batch)
                try:
                    os.write(self.run.tb.get_dev_fd(self.node), out + struct.pack(EVENT, sec, usec, EV_SYN, SYN_REPORT, 0))
                except BlockingIOError:
                    pass   # no reader drains the node: evdev drops what a client's full buffer cannot hold
            batch = []
        else:
            results.say("uinput: %s event type %d code %d value %d, not passed on" % (self.node, kind, code, value),
                        "uinput-event", node=self.node, type=kind, code=code, value=value, changed=False, at=program_monotonic())
        return batch


def uinput(run):
    """["uinput"]
    Emulate /dev/uinput (a misc device, 10:223) for a program that makes a switch device through it: its ioctls
    answered as drivers/input/misc/uinput.c does, the device it creates registered with its event node (answered
    as a "switches" device), and each event it writes passed on to that node; "uinput-created", "uinput-event"
    and "uinput-destroyed" results say what it did."""
    run.tb.add_from_string("P: /devices/virtual/misc/uinput\nN: uinput\nE: DEVNAME=/dev/uinput\nE: SUBSYSTEM=misc\n"
                           "E: MAJOR=10\nE: MINOR=223\nA: dev=10:223\\n\n")
    handler = UInput(run)
    run.sensors["/dev/uinput"] = handler
    run.tb.attach_ioctl("/dev/uinput", handler)
    if run.user is not None:
        give(os.path.join(run.root, "ioctl"), run.user, recursive=True)
    threading.Thread(target=handler.relay, daemon=True).start()


PROBE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "probes", "evdev-switches.py")


def read_switches(run, node, expected, seconds):
    """["read-switches", NODE, {SWITCH: 0|1, ...}, SECONDS]
    Read an event node's switches back through evdev as the desktop's libinput would: a probe under the
    emulated kernel opens NODE ("uinput": the one the emulated uinput created) read-only and asks EVIOCGSW,
    again at each event, until the switches in EXPECTED read so or SECONDS pass (a failure); a "read-switches"
    result gives the node's name and what it read."""
    if run.env is None:
        raise Failure("no start step ran before")
    deadline = time.monotonic() + seconds
    if node == "uinput":
        while getattr(run, "uinput_node", None) is None:
            if time.monotonic() > deadline:
                raise Failure("the emulated uinput created no device within %ss" % seconds)
            time.sleep(0.02)
        node = run.uinput_node
    for name in expected:
        _code(name)
    done = subprocess.run(["/usr/bin/python3", PROBE, node, json.dumps(expected), str(max(0.0, deadline - time.monotonic()))],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=run.env, text=True)
    lines = done.stdout.strip().splitlines()
    read = json.loads(lines[-1]) if lines else {}
    results.say("read-switches: %s %s" % (node, done.stdout.strip() or done.stderr.strip()), "read-switches",
                node=node, name=read.get("name"), states=read.get("states"), at=program_monotonic())
    if done.returncode != 0:
        raise Failure("%s: %s" % (node, (done.stderr.strip() or "read %s, expected %s" % (read.get("states"), expected))))
