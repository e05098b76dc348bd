"""What every part of the driver shares: its paths, the stop flag, the program's clock, failures and line streams."""
import grp
import os
import pwd
import re
import threading
import time

# Tests/Testbed, where the driver and the emulated kernel's sources are; Tests/fixtures, where the data is (device
# files, "add" paths and played traces are relative to it).
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
KERNEL_SOURCES = os.path.join(HERE, "kernel")

# Set when the driver ends: background feeders stop, and an error one meets in the testbed being removed is not
# reported.
STOPPING = threading.Event()


def _report_unless_stopping(args):
    if not STOPPING.is_set():
        threading.__excepthook__(args)


threading.excepthook = _report_unless_stopping


class Failure(Exception):
    """A step failed: the message says what."""


class Clock:
    """Seconds the emulated system has slept ("suspend" steps): PROGRAM's CLOCK_MONOTONIC is this far behind the
    driver's (the emulated kernel holds it back by what iio-kernel/slept says)."""

    slept = 0.0


def program_monotonic():
    """Now on PROGRAM's CLOCK_MONOTONIC, in seconds: the kernel's less the time slept."""
    return time.monotonic() - Clock.slept


def program_monotonic_ns():
    return time.monotonic_ns() - int(round(Clock.slept * 1e9))


class Stream:
    """The lines of a pipe or socket, each with its arrival on PROGRAM's CLOCK_MONOTONIC, read in the background;
    `wait` finds a line after the last one it matched."""

    def __init__(self, pipe):
        self.lines = []
        self.arrivals = []
        self.cursor = 0
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for raw in pipe:
            now = program_monotonic()
            with self.cond:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.arrivals.append(now)
                self.cond.notify_all()

    def wait(self, pattern, timeout):
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(self.cursor, len(self.lines)):
                    if rx.search(self.lines[i]):
                        self.cursor = i + 1
                        return
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure("no line matching %r within %ss" % (pattern, timeout))
                self.cond.wait(left)

    def seen(self, pattern):
        """Whether any line so far matches PATTERN (leaves `wait`'s cursor where it is)."""
        rx = re.compile(pattern)
        with self.cond:
            return any(rx.search(line) for line in self.lines)

    def timed(self):
        """(arrival, line) of each line so far."""
        with self.cond:
            return list(zip(self.arrivals, self.lines))


def read_lines(path):
    try:
        with open(path) as f:
            return [line.rstrip("\n") for line in f]
    except OSError:
        return []


def read_text(path):
    """A file's text as compared by expect-file and wait-file: libiio writes a trailing NUL, the kernel's own
    files end in a newline."""
    with open(path) as f:
        return f.read().rstrip("\0\n")


def give(path, user, recursive):
    """chown PATH (following a symlink) to USER:GROUP; with recursive, everything under a directory too."""
    name, group = user.split(":")
    uid, gid = pwd.getpwnam(name).pw_uid, grp.getgrnam(group).gr_gid
    os.chown(path, uid, gid)
    if recursive and os.path.isdir(path):
        for top, dirs, files in os.walk(path):
            for entry in dirs + files:
                os.lchown(os.path.join(top, entry), uid, gid)


def write_atomically(path, text):
    """Writes TEXT to PATH through a temporary file beside it, so a reader sees the whole text or none."""
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
