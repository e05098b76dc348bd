"""The testbed's files and devices: sysfs attributes, devices added and removed, uevents, files checked, modes and
owners, commands run as root, and plain sleeps."""
import os
import subprocess
import time

from .common import FIXTURES, Failure, give, read_text


def set_step(run, device, attributes):
    """["set", DEVICE, {ATTR: VALUE, ...}]
    Replace sysfs attributes atomically (a newline is appended), each keeping its file's mode and owner."""
    for attr, value in attributes.items():
        run.set_attr(device, attr, value)


def remove(run, path):
    """["remove", SYSFS_PATH]
    Remove an emulated device with the devices below it (and their device nodes, so that they can be added again,
    as a USB device unplugged takes its interfaces and video nodes along). No uevent is sent: a "uevent" step sends
    the "remove" first. umockdev (0.17) keeps a removed device node's name taken: a device added again needs
    other node names, as the kernel often gives a device plugged in again (camera-webcam-replugged.umockdev)."""
    top = run.root + path
    below = [d for d, _, files in os.walk(top) if "uevent" in files and d != top]
    # The deepest first, so that each device's class link goes with it.
    for device in sorted(below, key=lambda d: d.count("/"), reverse=True) + [top]:
        sysfs = device[len(run.root):]
        if os.path.isdir(device):
            run.tb.remove_device(sysfs)
        # The testbed keeps the device node; drop it so the device can be added again.
        node = os.path.join(run.root, "dev", os.path.basename(sysfs))
        if os.path.lexists(node):
            os.unlink(node)


def add(run, file):
    """["add", FILE]
    Add devices from an umockdev file (relative to Tests/fixtures). umockdev announces each with an "add" uevent
    as it makes it, so a program may open a node at once: attach its ioctls ("switches", "v4l2-controls",
    "media-graph") before adding its device."""
    run.tb.add_from_file(os.path.join(FIXTURES, file))
    if run.guard:
        run.guard.refresh()


def uevent(run, path, action):
    """["uevent", SYSFS_PATH, ACTION]
    Send a uevent (add, remove, change) for an emulated device."""
    run.tb.uevent(path, action)


def expect_file(run, path, content):
    """["expect-file", PATH, CONTENT]
    Compare a file under the testbed root (a trailing NUL or newline ignored)."""
    got = read_text(os.path.join(run.root, path))
    if got != content:
        raise Failure("%s holds %r, expected %r" % (path, got, content))


def wait_file(run, path, content, seconds):
    """["wait-file", PATH, CONTENT, SECONDS]
    Wait until a file under the testbed root holds CONTENT."""
    full = os.path.join(run.root, path)
    deadline = time.monotonic() + seconds
    while True:
        got = read_text(full)
        if got == content:
            return
        if time.monotonic() > deadline:
            raise Failure("%s still holds %r after %ss, expected %r" % (path, got, seconds, content))
        time.sleep(0.02)


def chmod(run, path, mode):
    """["chmod", PATH, MODE]
    Change the mode (octal text such as "000") of a file under the testbed root."""
    os.chmod(os.path.join(run.root, path), int(mode, 8))


def chown(run, path, owner):
    """["chown", PATH, USER:GROUP]
    Give a file under the testbed root (following a symlink, such as a device node's to its PTY) to USER, a
    directory with all it holds."""
    give(os.path.join(run.root, path), owner, recursive=True)


def mkdir(run, path):
    """["mkdir", PATH]
    Create a directory under the testbed root, such as a device-tree node under /sys/firmware/devicetree/base,
    which an umockdev file cannot hold."""
    os.makedirs(os.path.join(run.root, path.lstrip("/")), exist_ok=True)


def exec_step(run, argv):
    """["exec", [COMMAND, ARG...]]
    Run COMMAND as root to its end, each "{root}" in an argument replaced by the testbed root; fail unless it
    exits 0."""
    command = [a.replace("{root}", run.root) for a in argv]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise Failure("%s exited %d: %s" % (command, done.returncode, done.stdout.decode(errors="replace")))


def sleep(run, seconds):
    """["sleep", SECONDS]
    Sleep."""
    time.sleep(seconds)
