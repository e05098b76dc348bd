"""The desktop beside PROGRAM: the real libinput (../probes/libinput-seat.c) on its udev backend, inside the
testbed, as a compositor runs it: the input devices it takes, the keyboard it suspends while a tablet-mode switch
reads 1 and resumes, and what it logs."""
import hashlib
import os
import subprocess
import tempfile

from . import results
from .common import HERE, Failure, Stream
from .kernel import kernel_environment
from .neighbours import start_neighbour

SOURCE = os.path.join(HERE, "probes", "libinput-seat.c")


def probe_binary():
    """Builds libinput-seat from its source once per version of it, in the temporary directory, against the
    installed libinput and libudev (libinput-dev, libudev-dev)."""
    with open(SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    target = os.path.join(tempfile.gettempdir(), "rotationd-libinput-seat-%s" % digest)
    if os.path.exists(target):
        return target
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libinput", "libudev"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if flags.returncode != 0:
        raise Failure("libinput's development files are not installed (libinput-dev; scripts/install-deps.sh): %s"
                      % flags.stderr.strip())
    tmp = "%s.%d" % (target, os.getpid())
    subprocess.run(["cc", "-O1", "-Wall", "-o", tmp, SOURCE] + flags.stdout.split(), check=True)
    os.rename(tmp, target)
    return target


class Desktop:
    """libinput-seat running beside PROGRAM under the same emulated kernel, and its lines."""

    def __init__(self, run):
        env = run.env or kernel_environment(run.root, run.rules, run.neighbours_log)
        self.process = start_neighbour([probe_binary()], env)
        self.out, self.err = Stream(self.process.stdout), Stream(self.process.stderr)

    def wait(self, pattern, seconds):
        if self.process.poll() is not None:
            raise Failure("libinput-seat exited with status %s: %s" % (self.process.returncode, " / ".join(self.err.lines)))
        self.out.wait(pattern, seconds)

    def report(self):
        """Ends libinput-seat and reports each of its lines as "libinput: LINE" (neighbour-output "libinput")."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(5)
        for stream, name in ((self.out, "stdout"), (self.err, "stderr")):
            stream.thread.join(5)
            for when, line in stream.timed():
                results.say("libinput: %.6f %s" % (when, line), "neighbour-output", name="libinput", stream=name,
                            line=line, at=when)


def libinput(run, seconds):
    """["libinput", SECONDS]
    Start the real libinput beside PROGRAM, inside the testbed under the emulated kernel, on its udev backend
    with seat0 as a compositor runs it (Tests/Testbed/probes/libinput-seat.c, built here against libinput-dev),
    and wait up to SECONDS until it has taken the devices there. It prints the devices it adds and removes, each
    node it opens and closes (libinput closes the node of a keyboard it suspends and opens it again when it
    resumes it), the switches' toggles, the keys typed and its own debug log; "wait-libinput" waits on them, and
    when the driver ends each line is reported as "libinput: T LINE". It sees an input device once udev's
    database has its entry ("keyboard", a device made through "uinput")."""
    if getattr(run, "desktop", None) is not None:
        raise Failure("libinput already runs")
    run.desktop = Desktop(run)
    run.desktop.wait("^ready$", seconds)


def wait_libinput(run, pattern, seconds):
    """["wait-libinput", REGEX, SECONDS]
    Wait for a line of libinput's (a "libinput" step before) matching REGEX after the last match."""
    if getattr(run, "desktop", None) is None:
        raise Failure("no libinput step ran before")
    run.desktop.wait(pattern, seconds)


def end_desktop(run):
    """Ends libinput, if it runs, and reports its lines."""
    if getattr(run, "desktop", None) is not None:
        run.desktop.report()
