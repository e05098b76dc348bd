#!/usr/bin/python3
"""Reads an input device's switches back through evdev, as the desktop's libinput does.

    evdev-switches.py NODE EXPECTED SECONDS

Opens NODE read-only and non-blocking, asks its name (EVIOCGNAME), the switches it reports (EVIOCGBIT for EV_SW)
and their states (EVIOCGSW), and prints them as one JSON line: {"name": NAME, "states": {SWITCH: 0|1, ...}}, the
switches named "tablet-mode" and "lid" (other codes by number). EXPECTED is a JSON object of the same form as
"states": until the switches it names read so, the node is polled and EVIOCGSW asked again at each event it
hands over, for up to SECONDS; exit status 1 if they never do, 2 if NODE cannot be opened or asked."""
import fcntl
import json
import os
import select
import sys
import time

SWITCHES = {0x00: "lid", 0x01: "tablet-mode"}
EV_SW = 0x05


def ior(nr, size):
    """_IOR('E', NR, SIZE), as linux/input.h builds EVIOCGNAME and friends."""
    return (2 << 30) | (size << 16) | (ord("E") << 8) | nr


def ask(fd, nr, size):
    return fcntl.ioctl(fd, ior(nr, size), bytes(size))


def bits(raw):
    return {i for i in range(len(raw) * 8) if raw[i // 8] & (1 << (i % 8))}


def main():
    node, expected, seconds = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
    try:
        fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        name = ask(fd, 0x06, 256).split(b"\0")[0].decode(errors="replace")
        reported = bits(ask(fd, 0x20 + EV_SW, 2))
    except OSError as e:
        print("%s: %s" % (node, e), file=sys.stderr)
        return 2
    deadline = time.monotonic() + seconds
    while True:
        on = bits(ask(fd, 0x1B, 2))
        states = {SWITCHES.get(c, str(c)): 1 if c in on else 0 for c in sorted(reported)}
        if all(states.get(k) == v for k, v in expected.items()) or time.monotonic() >= deadline:
            print(json.dumps({"name": name, "states": states}))
            return 0 if all(states.get(k) == v for k, v in expected.items()) else 1
        ready, _, _ = select.select([fd], [], [], min(0.05, max(0.0, deadline - time.monotonic())))
        if ready:
            try:
                os.read(fd, 24 * 64)
            except OSError:
                pass


if __name__ == "__main__":
    sys.exit(main())
