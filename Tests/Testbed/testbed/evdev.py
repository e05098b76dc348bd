"""Evdev nodes as the kernel's evdev answers their readers (drivers/input/evdev.c), and udev's database entry of an
input device: what libinput (through libevdev) asks of a node it opens, for a switch device and for the internal
keyboard it suspends while a tablet-mode switch reads 1."""
import errno
import os
import struct
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

from .common import Failure, give  # noqa: E402

# linux/input.h and input-event-codes.h.
EV_SYN, EV_KEY, EV_MSC, EV_SW, EV_LED, EV_REP = 0x00, 0x01, 0x04, 0x05, 0x11, 0x14
SYN_REPORT, MSC_SCAN = 0, 4
EVENT = "<qqHHi"                                 # struct input_event on x86-64: timeval, type, code, value
IOC_READ, IOC_WRITE = 2, 1
NR_VERSION, NR_ID, NR_REP, NR_NAME, NR_PHYS, NR_UNIQ, NR_PROP = 0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09
NR_KEY_STATE, NR_LED_STATE, NR_SND_STATE, NR_SW_STATE, NR_BITS = 0x18, 0x19, 0x1A, 0x1B, 0x20
NR_GRAB, NR_CLOCK_ID = 0x90, 0xA0
BUS_VIRTUAL, BUS_HOST, BUS_I8042 = 0x06, 0x19, 0x11


def bits(codes, size):
    """The bitmap of CODES in SIZE bytes, as the kernel copies one to an EVIOCG* ioctl."""
    out = bytearray(size)
    for c in codes:
        if c // 8 < size:
            out[c // 8] |= 1 << (c % 8)
    return bytes(out)


class Evdev(UMockdev.IoctlBase):
    """An evdev node's ioctls, as drivers/input/evdev.c answers them: EVIOCGVERSION, EVIOCGID, EVIOCGNAME,
    EVIOCGPHYS and EVIOCGUNIQ (ENOENT: none, as for a uinput device), EVIOCGPROP (none), EVIOCGBIT for the event
    types and for each type's codes, the states of keys, LEDs and sounds (all off) and of the switches
    (`states`, code -> 0 or 1), EVIOCGREP for a device with EV_REP; EVIOCGRAB and EVIOCSCLOCKID are taken. Every
    other ioctl fails with ENOTTY, as the kernel's does for an unknown one. `codes` maps each event type the
    device reports to its codes (EV_SYN is always there); `states` are the switches, reported under EV_SW."""

    def __init__(self, name, states=None, codes=None, bus=BUS_HOST):
        super().__init__()
        self.name = name.encode()
        self.bus = bus
        self.states = dict(states or {})
        self.codes = {EV_SYN: {SYN_REPORT}}
        self.codes.update({t: set(c) for t, c in (codes or {}).items()})
        if self.states:
            self.codes.setdefault(EV_SW, set()).update(self.states)

    def do_handle_ioctl(self, client):
        request = client.get_request()
        kind, nr, size, direction = (request >> 8) & 0xFF, request & 0xFF, (request >> 16) & 0x3FFF, request >> 30
        if kind == ord("E") and direction == IOC_WRITE and nr in (NR_GRAB, NR_CLOCK_ID):
            client.complete(0, 0)
            return True
        reply = self._reply(nr, size) if kind == ord("E") and direction == IOC_READ else None
        if isinstance(reply, int):
            client.complete(-1, reply)
            return True
        reply = reply[:size]
        if reply:
            client.get_arg().resolve(0, len(reply)).update(0, reply)
        client.complete(len(reply), 0)
        return True

    def _reply(self, nr, size):
        """The bytes an EVIOCG* ioctl number NR copies out, or the errno it fails with (ENOTTY: unknown)."""
        if nr == NR_VERSION:
            return struct.pack("<i", 0x010001)
        if nr == NR_ID:
            return struct.pack("<HHHH", self.bus, 1, 1, 0xAB41 if self.bus == BUS_I8042 else 0)
        if nr == NR_REP:
            return struct.pack("<ii", 250, 33) if EV_REP in self.codes else errno.ENOTTY
        if nr == NR_NAME:
            return self.name + b"\0"
        if nr in (NR_PHYS, NR_UNIQ):
            return errno.ENOENT
        if nr in (NR_PROP, NR_KEY_STATE, NR_LED_STATE, NR_SND_STATE):
            return bytes(size)
        if nr == NR_SW_STATE:
            return bits([c for c, on in self.states.items() if on], size)
        if nr == NR_BITS:
            return bits(self.codes.keys(), size)
        if NR_BITS < nr < NR_BITS + 0x20:
            return bits(self.codes.get(nr - NR_BITS, ()), size)
        return errno.ENOTTY


def udev_database(run, devnum, properties):
    """Writes udev's database entry of the device numbered DEVNUM ("13:64") under the testbed root, as udevd
    writes it once its rules ran: the time it was set up (I:) and PROPERTIES (E:). libudev then counts the
    device as initialized (Tests/Testbed/kernel/input.c maps /run/udev/data there)."""
    directory = os.path.join(run.root, "run/udev/data")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "c" + devnum), "w") as f:
        f.write("I:%d\n" % int(time.monotonic() * 1e6) + "".join("E:%s=%s\n" % kv for kv in sorted(properties.items())))
    if run.user is not None:
        give(os.path.join(run.root, "run/udev"), run.user, recursive=True)


def forget_database(run, devnum):
    """Removes the device's entry, as udevd does when it handles the device's removal."""
    path = os.path.join(run.root, "run/udev/data", "c" + devnum)
    if os.path.exists(path):
        os.unlink(path)


def _event_device(run, node):
    """The sysfs directory of event node NODE (/dev/input/eventN) and its device number."""
    directory = os.path.realpath(os.path.join(run.root, "sys/class/input", os.path.basename(node)))
    try:
        with open(os.path.join(directory, "dev")) as f:
            return directory, f.read().strip()
    except OSError:
        raise Failure("%s is not an input device's event node with a device number (A: dev=13:N) in the devices" % node)


# The letters, digits and the keys around them, KEY_ESC (1) to KEY_KPDOT (83): enough for libinput to call the
# device a keyboard (it wants KEY_Q to KEY_P).
KEYBOARD_KEYS = range(1, 84)
LEDS = (0, 1, 2)   # LED_NUML, LED_CAPSL, LED_SCROLLL


def keyboard(run, node, name):
    """["keyboard", NODE, NAME]
    Emulate the internal keyboard at NODE (an input device's event node of the umockdev files, on the i8042 bus
    with ID_INPUT_KEYBOARD=1, which libinput's quirks call internal), named NAME: its evdev ioctls answered as the
    kernel's (keys KEY_ESC to KEY_KPDOT, LEDs, key repeat), and udev's database entry written so that libinput
    takes it. "key" steps type on it."""
    _, devnum = _event_device(run, node)
    handler = Evdev(name, codes={EV_KEY: KEYBOARD_KEYS, EV_MSC: [MSC_SCAN], EV_LED: LEDS, EV_REP: []}, bus=BUS_I8042)
    run.sensors[node] = handler
    run.tb.attach_ioctl(node, handler)
    if run.user is not None:
        give(os.path.join(run.root, "ioctl"), run.user, recursive=True)
    udev_database(run, devnum, {"ID_INPUT": "1", "ID_INPUT_KEY": "1", "ID_INPUT_KEYBOARD": "1"})


def key(run, node, code):
    """["key", NODE, CODE]
    Type key CODE (30: KEY_A) on a "keyboard" device: a press and a release, each with its report, written into
    the node's PTY as the kernel's evdev queues them for a reader."""
    if not isinstance(run.sensors.get(node), Evdev) or EV_KEY not in run.sensors[node].codes:
        raise Failure("%s is not an emulated keyboard: a \"keyboard\" step comes first" % node)
    now = time.time()
    sec, usec = int(now), int((now - int(now)) * 1e6)
    out = b"".join(struct.pack(EVENT, sec, usec, EV_KEY, code, value) + struct.pack(EVENT, sec, usec, EV_SYN, SYN_REPORT, 0)
                   for value in (1, 0))
    os.write(run.tb.get_dev_fd(node), out)
