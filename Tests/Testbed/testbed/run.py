"""One run of the driver: the testbed and everything the steps share, and the report at its end."""
import json
import os
import shutil
import sys
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

from . import results  # noqa: E402
from .cameras import end_guard  # noqa: E402
from .desktop import end_desktop  # noqa: E402
from .common import FIXTURES, STOPPING, Failure, give, read_lines  # noqa: E402
from .program import stop  # noqa: E402


class Run:
    """The testbed (its devices from the umockdev files, their sidecars' sensors and kernel rules), PROGRAM and its
    streams, and what the steps start beside it."""

    def __init__(self, devices, actions, program, user=None, extra_rules=()):
        self.tb = UMockdev.Testbed.new()
        self.root = self.tb.get_root_dir()
        self.actions, self.program, self.user = actions, program, user
        self.zoo, self.rules = {}, []
        for d in devices:
            self._add_devices(d)
        self.rules += list(extra_rules)
        self.kernel_log = os.path.join(self.root, "kernel.log")
        self.neighbours_log = os.path.join(self.root, "neighbours-kernel.log")
        self.play_started = os.path.join(self.root, "play-started")
        self.suspend_woke = os.path.join(self.root, "suspend-woke")
        self.env = self.proc = self.out = self.err = None
        self.sock = self.sock_stream = None
        self.sock_streams, self.socks, self.feeders, self.sensors = [], [], {}, {}
        # The stdout and stderr streams of PROGRAM's earlier runs, when "start" ran it again.
        self.ended = []
        self.guard = self.neighbours = self.clock = self.desktop = None
        self.emulated, self.holds = [], []
        self.index, self.step, self.late_failure = 0, None, None
        if user is not None:
            self._as_user(user)

    def _add_devices(self, file):
        """Adds an umockdev file's devices, with the sensors and rules of its sidecar (X.json beside X.umockdev)."""
        self.tb.add_from_file(os.path.join(FIXTURES, file))
        description = os.path.join(FIXTURES, os.path.splitext(file)[0] + ".json")
        if os.path.exists(description):
            with open(description) as f:
                spec = json.load(f)
            self.zoo.update(spec.get("devices", {}))
            self.rules += spec.get("rules", [])

    def _as_user(self, user):
        """PROGRAM runs as USER:GROUP, unprivileged, as rotationd.service runs it."""
        # The program reaches sysfs and /dev through the testbed root, binds its udev monitor's socket there, and
        # has its ioctls on emulated device nodes answered through the sockets under ioctl/.
        give(self.root, user, recursive=False)
        give(os.path.join(self.root, "ioctl"), user, recursive=True)
        name, group = user.split(":")
        self.program = ["setpriv", "--reuid=" + name, "--regid=" + group, "--clear-groups", "--inh-caps=-all",
                        "--bounding-set=-all", "--no-new-privs", "--"] + self.program

    def sysfs(self, device, attr):
        return os.path.join(self.root, "sys/bus/iio/devices", device, attr)

    def set_attr(self, device, attr, value):
        """Replaces a sysfs attribute atomically, keeping its file's mode and owner."""
        path = self.sysfs(device, attr)
        # The new value is staged outside sys/: a reader listing the device's directory (libiio stats every entry
        # it lists) must never see a file that is gone by the time it looks.
        staging = os.path.join(self.root, "staging")
        os.makedirs(staging, exist_ok=True)
        tmp = os.path.join(staging, "%s-%s" % (device.replace(":", "_"), attr.replace("/", "_")))
        with open(tmp, "w") as f:
            f.write(str(value) + "\n")
        if os.path.exists(path):
            st = os.stat(path)
            os.chmod(tmp, st.st_mode & 0o7777)
            os.chown(tmp, st.st_uid, st.st_gid)
        os.rename(tmp, path)

    def fail_later(self, step, message):
        """A failure found in the background (a hold_until not met): the steps stop after the current one."""
        if self.late_failure is None:
            self.late_failure = (step, message)


def end(run, failure):
    """Ends the run: PROGRAM, the feeders and the neighbours stop; reports what they said and the failure, if any
    ((step, message), step None for one found after the steps); returns the exit status."""
    # The program stops first, as a service is stopped while its sensor streams: a feeder stopped before it would
    # leave the program a silent buffer for as long as its own shutdown takes.
    if run.proc is not None:
        stop(run.proc)
    end_desktop(run)
    for f in run.feeders.values():
        f.report()
    if run.neighbours is not None:
        run.neighbours.end()
    try:
        end_guard(run)
    except Failure as e:
        failure = failure or (None, str(e))
    if run.proc is not None:
        _report_program(run)
    results.kernel_log(read_lines(run.kernel_log), neighbour=False)
    results.kernel_log(read_lines(run.neighbours_log), neighbour=True)
    if failure:
        step, message = failure
        text = "driver: %s" % message if step is None else "driver: step %s failed: %s" % (json.dumps(step), message)
        results.say(text, "failure", step=step, message=message)
    return 1 if failure else 0


def _report_program(run):
    """PROGRAM's stdout, then each socket connection's lines, on stdout; its stderr on stderr."""
    # The readers end at the end of the pipes, which follows the program's exit at once; the bound is only for a
    # program that left a child holding them.
    runs = run.ended + [(run.out, run.err)]
    for out, err in runs:
        out.thread.join(30)
        err.thread.join(30)
    for out, _ in runs:
        for when, line in out.timed():
            print(line)
            results.emit("output", stream="stdout", line=line, at=when)
    for n, stream in enumerate(run.sock_streams, 1):
        for when, line in stream.timed():
            print("socket %d: %s" % (n, line))
            results.emit("socket", connection=n, line=line, at=when)
    for _, err in runs:
        for when, line in err.timed():
            print(line, file=sys.stderr)
            results.emit("output", stream="stderr", line=line, at=when)


def finish(root, status):
    """Ends the driver: stops the background feeders, removes the testbed's directory and exits with STATUS at
    once. Python does not finalize the Testbed object at exit, so umockdev would leave the directory behind; and
    umockdev aborts if it finalizes one whose directory is gone, so the interpreter must not tear down after."""
    STOPPING.set()
    time.sleep(0.05)
    results.close(status)
    shutil.rmtree(root, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
