"""Input switches: an evdev node with the tablet-mode and lid switches, its state answered to EVIOCGSW and friends
through umockdev, and each change written into its PTY as the kernel's evdev hands events to a reader."""
import errno
import os
import struct
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

from . import results  # noqa: E402
from .common import Failure, give, program_monotonic  # noqa: E402

# linux/input.h and input-event-codes.h.
EV_SYN, EV_SW = 0x00, 0x05
SYN_REPORT = 0
SWITCHES = {"lid": 0x00, "tablet-mode": 0x01}   # SW_LID, SW_TABLET_MODE
EVENT = "<qqHHi"                                 # struct input_event on x86-64: timeval, type, code, value
IOC_READ = 2
NR_VERSION, NR_ID, NR_NAME, NR_SW_STATE, NR_BITS = 0x01, 0x02, 0x06, 0x1B, 0x20


def _bits(codes, size):
    out = bytearray(size)
    for c in codes:
        if c // 8 < size:
            out[c // 8] |= 1 << (c % 8)
    return bytes(out)


class EvdevSwitches(UMockdev.IoctlBase):
    """The ioctls a switch reader asks of an evdev node (drivers/input/evdev.c): EVIOCGVERSION, EVIOCGID,
    EVIOCGNAME, EVIOCGBIT for the event types (EV_SYN and EV_SW) and for EV_SW (the switches reported), and
    EVIOCGSW (their states now). Every other ioctl fails with ENOTTY, as the kernel's does for an unknown one."""

    def __init__(self, name, states):
        super().__init__()
        self.name = name.encode()
        self.states = dict(states)   # code -> 0 or 1

    def do_handle_ioctl(self, client):
        request = client.get_request()
        kind, nr, size, direction = (request >> 8) & 0xFF, request & 0xFF, (request >> 16) & 0x3FFF, request >> 30
        if kind != ord("E") or direction != IOC_READ:
            client.complete(-1, errno.ENOTTY)
            return True
        if nr == NR_VERSION:
            reply = struct.pack("<i", 0x010001)
        elif nr == NR_ID:
            reply = struct.pack("<HHHH", 0x19, 0, 0, 0)   # BUS_HOST
        elif nr == NR_NAME:
            reply = (self.name + b"\0")[:size]
        elif nr == NR_SW_STATE:
            reply = _bits([c for c, on in self.states.items() if on], size)
        elif nr == NR_BITS:
            reply = _bits([EV_SYN, EV_SW], size)
        elif nr == NR_BITS + EV_SW:
            reply = _bits(self.states.keys(), size)
        elif NR_BITS < nr < NR_BITS + 0x20:
            reply = bytes(size)   # no codes of another event type
        else:
            client.complete(-1, errno.ENOTTY)
            return True
        reply = reply[:size]
        if reply:
            client.get_arg().resolve(0, len(reply)).update(0, reply)
        client.complete(len(reply), 0)
        return True


def _code(name):
    if name not in SWITCHES:
        raise Failure("unknown switch %r: one of %s" % (name, ", ".join(sorted(SWITCHES))))
    return SWITCHES[name]


def switches(run, node, name, states):
    """["switches", NODE, NAME, {SWITCH: 0|1, ...}]
    Emulate an evdev device at NODE (an input device's event node of the umockdev file, with an empty N: line)
    named NAME reporting the switches in STATES ("tablet-mode", "lid") in those states: EVIOCGSW, EVIOCGBIT,
    EVIOCGNAME, EVIOCGID and EVIOCGVERSION answer as the kernel's evdev would; "switch" steps change them."""
    handler = EvdevSwitches(name, {_code(k): 1 if v else 0 for k, v in states.items()})
    run.sensors[node] = handler
    run.tb.attach_ioctl(node, handler)
    if run.user is not None:
        give(os.path.join(run.root, "ioctl"), run.user, recursive=True)


def switch(run, node, name, value):
    """["switch", NODE, SWITCH, 0|1]
    Change one switch of a "switches" device: its EVIOCGSW state, and an EV_SW event and an EV_SYN report written
    into the node's PTY, as the kernel's evdev queues them for every reader (timestamped on CLOCK_REALTIME)."""
    handler = run.sensors.get(node)
    if not isinstance(handler, EvdevSwitches):
        raise Failure("%s is not an emulated switch device: a \"switches\" step comes first" % node)
    code = _code(name)
    if code not in handler.states:
        raise Failure("%s does not report %s" % (node, name))
    handler.states[code] = 1 if value else 0
    now = time.time()
    sec, usec = int(now), int((now - int(now)) * 1e6)
    os.write(run.tb.get_dev_fd(node),
             struct.pack(EVENT, sec, usec, EV_SW, code, handler.states[code]) + struct.pack(EVENT, sec, usec, EV_SYN, SYN_REPORT, 0))
    results.say("switch: %s %s %d" % (node, name, handler.states[code]), "switch", node=node, switch=name,
                value=handler.states[code], at=program_monotonic())
