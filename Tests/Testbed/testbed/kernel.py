"""The emulated kernel: iio-kernel.so built from Tests/Testbed/kernel's sources, the environment that loads it in
front of umockdev's preload, and its log (IIO_KERNEL_LOG)."""
import glob
import hashlib
import os
import re
import subprocess
import tempfile

from .common import KERNEL_SOURCES, Clock

# The text of iio-kernel/slept: fixed width, so that it is rewritten in place (the preload maps the file).
SLEPT_FORMAT = "%20.9f\n"


def kernel_library():
    """Builds iio-kernel.so from Tests/Testbed/kernel's sources (every *.c there) once per version of them, in the
    temporary directory."""
    directory = KERNEL_SOURCES
    sources = sorted(glob.glob(os.path.join(directory, "*.c")))
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(directory, "*.[ch]"))):
        with open(path, "rb") as f:
            digest.update(os.path.basename(path).encode() + b"\0" + f.read())
    target = os.path.join(tempfile.gettempdir(), "rotationd-iio-kernel-%s.so" % digest.hexdigest()[:16])
    if not os.path.exists(target):
        tmp = "%s.%d" % (target, os.getpid())
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-I", directory, "-o", tmp] + sources + ["-ldl"], check=True)
        os.chmod(tmp, 0o755)
        os.rename(tmp, target)
    return target


def kernel_environment(root, rules, log, sleeps=False):
    """The program's environment: the testbed's, with iio-kernel.so loaded in front of umockdev's library,
    answering sysfs writes and raw reads as the kernel does, by the IIO core's rules and the drivers' RULES;
    every write is logged to LOG. With SLEEPS, the program's clocks and timers follow the "suspend" steps
    (IIO_KERNEL_SLEEP)."""
    env = dict(os.environ)
    # The testbed set UMOCKDEV_DIR in the C environment, which os.environ (read at start) does not show.
    env["UMOCKDEV_DIR"] = root
    env["LD_PRELOAD"] = (kernel_library() + " " + env.get("LD_PRELOAD", "")).strip()
    path = os.path.join(root, "kernel.rules")
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in rules))
    open(log, "w").close()
    os.chmod(log, 0o666)
    env["IIO_KERNEL_RULES"] = path
    env["IIO_KERNEL_LOG"] = log
    # rotationd's runtime directory (its record of what it changed on the sensors, SettingsJournal): one per
    # testbed unless the test gives one, as runs side by side emulate devices of the same names.
    if "RUNTIME_DIRECTORY" not in env:
        run = os.path.join(root, "run")
        os.makedirs(run, exist_ok=True)
        os.chmod(run, 0o1777)
        env["RUNTIME_DIRECTORY"] = run
    if sleeps:
        env["IIO_KERNEL_SLEEP"] = _sleep_file(root)
    return env


def _sleep_file(root):
    """Creates iio-kernel/slept under ROOT, holding the seconds slept so far; returns its path."""
    directory = os.path.join(root, "iio-kernel")
    os.makedirs(directory, exist_ok=True)
    os.chmod(directory, 0o777)
    slept = os.path.join(directory, "slept")
    with open(slept, "w") as f:
        f.write(SLEPT_FORMAT % Clock.slept)
    os.chmod(slept, 0o644)
    return slept


class KernelLog:
    """New lines of the kernel log (IIO_KERNEL_LOG) from an offset on: the writes and the raw reads a sensor hears of."""

    WRITE = re.compile(r'^write (\S+) (\S+) "(.*)" ok$')
    READ = re.compile(r'^read (\S+) (\S+) slept ')

    def __init__(self, path, offset):
        self.path, self.offset, self.rest = path, offset, b""

    def _lines(self):
        """The lines logged since the last call."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        self.offset += len(data)
        data = self.rest + data
        lines = data.split(b"\n")
        self.rest = lines.pop()
        return [line.decode("utf-8", "replace") for line in lines]

    def writes(self):
        """(device, attribute, value) of each write the kernel took since the last call."""
        return [m.groups() for m in map(self.WRITE.match, self._lines()) if m]

    def reads(self):
        """(device, attribute) of each raw read that slept in the driver since the last call (only those are
        logged: a device with a raw-delay or raw-periods rule)."""
        return [m.groups() for m in map(self.READ.match, self._lines()) if m]
