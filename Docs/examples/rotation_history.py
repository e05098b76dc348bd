"""A rotationd subscriber for capture programs (standard library only), shared by still.py and record.py.

RotationHistory connects to the service, reads its states on a thread of its own, and keeps the recent
ones, so that a program can ask for a camera's angle at the moment a frame was taken. Each state holds
from its "t" (seconds on CLOCK_MONOTONIC, the clock V4L2 and GStreamer's system clock stamp frames with)
until the next state's "t". A camera is found by whatever the program knows it by: its name, libcamera's
id (PipeWire's api.libcamera.path), a device or capture node (api.v4l2.path; symlinks are resolved), or
udev's ID_PATH (PipeWire's device.bus-path). The same rules are in RotationClient (Swift) and described in
Docs/protocol.md and Docs/cameras.md.
"""
import bisect
import json
import os
import socket
import threading
import time

SYSTEM_SOCKET = "/run/rotationd/rotationd.sock"
# A change reaches a subscriber this long after its "t" at most, in practice (the filter decides, then the
# line travels): an answer about a moment is final once the moment is this far in the past.
SETTLE = 0.25


class NoService(Exception):
    """No service answers, or it is not a protocol 1 rotationd."""


def default_socket():
    """$ROTATIOND_SOCKET, else $XDG_RUNTIME_DIR/rotationd.sock when it exists (not as root), else the system one."""
    env = os.environ.get("ROTATIOND_SOCKET")
    if env:
        return env
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if os.geteuid() != 0 and runtime:
        user = os.path.join(runtime, "rotationd.sock")
        if os.path.exists(user):
            return user
    return SYSTEM_SOCKET


def find_camera(cameras, key):
    """The camera in `cameras` that `key` names: its name, libcamera id, device or capture node (also once
    symlinks are resolved), or bus path; in that order of preference. None when none does."""
    for test in (lambda c: c.get("name") == key,
                 lambda c: c.get("libcamera") == key,
                 lambda c: key == c.get("device") or key in (c.get("nodes") or []),
                 lambda c: os.path.realpath(key) in [c.get("device")] + (c.get("nodes") or []) if key.startswith("/") else False,
                 lambda c: c.get("bus_path") == key):
        for camera in cameras:
            if test(camera):
                return camera
    return None


class RotationHistory:
    """The states rotationd publishes, kept as they arrive (the latest `limit`)."""

    def __init__(self, path=None, limit=256):
        self.path = path or default_socket()
        self.limit = limit
        self.states = []      # (t, state), t increasing
        self.arrivals = []    # when each of them arrived, CLOCK_MONOTONIC
        self.gaps = set()     # indices i: changes may have been missed between states[i - 1] and states[i]
        self.cameras = []     # the latest camera list
        self.changed = threading.Condition()
        self.closed = None
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(self.path)
        except OSError as e:
            raise NoService("no rotation service at %s (%s); start rotationd, or give --socket" % (self.path, e.strerror))
        self.stream = self.sock.makefile("r", encoding="utf-8", newline="\n")
        hello = json.loads(self.stream.readline() or "null")
        if not isinstance(hello, dict) or hello.get("type") != "hello" or hello.get("protocol") != 1:
            raise NoService("%s does not greet as a rotationd protocol 1 service" % self.path)
        self.cameras = hello.get("cameras", [])
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.stream:
                message = json.loads(line)
                if message.get("type") == "state":
                    self._record(message)
            why = "the service closed the connection"
        except (OSError, ValueError) as e:
            why = str(e)
        with self.changed:
            self.closed = why
            self.changed.notify_all()

    def _record(self, state):
        with self.changed:
            self.cameras = state.get("cameras", [])
            t = state.get("t")
            if isinstance(t, (int, float)):
                if self.states and t < self.states[-1][0]:
                    # Another clock: a replay started again. Start the history again too.
                    self.states, self.arrivals, self.gaps = [], [], set()
                if not self.states or (t, state.get("seq")) != (self.states[-1][0], self.states[-1][1].get("seq")):
                    if state.get("missed"):
                        self.gaps.add(len(self.states))
                    self.states.append((t, state))
                    self.arrivals.append(time.monotonic())
                    if len(self.states) > self.limit:
                        cut = len(self.states) - self.limit
                        self.states = self.states[cut:]
                        self.arrivals = self.arrivals[cut:]
                        self.gaps = {i - cut for i in self.gaps if i > cut}
            self.changed.notify_all()

    def state_at(self, moment):
        """The state in force at `moment` (CLOCK_MONOTONIC seconds), or None when the history does not tell."""
        with self.changed:
            i = bisect.bisect_right([t for t, _ in self.states], moment)
            if i == 0 or i in self.gaps:
                return None
            return self.states[i - 1][1]

    def angle_at(self, key, moment, timeout=5):
        """The camera's capture angle at `moment`, once the answer is final (SETTLE seconds after it), as
        (camera, angle, exif); the angle is None while the rotation was unknown then."""
        wait = moment + SETTLE - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        deadline = time.monotonic() + timeout
        with self.changed:
            # A state must have arrived at all (the greeting's state may still be on its way).
            while not self.states and self.closed is None and time.monotonic() < deadline:
                self.changed.wait(deadline - time.monotonic())
        state = self.state_at(moment)
        camera = find_camera(state["cameras"], key) if state else None
        if camera is None:
            return None, None, None
        return camera, camera.get("capture"), camera.get("exif")

    def wait_for_angle(self, key, timeout):
        """Waits until the current state gives the camera a capture angle; returns the camera or None."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                camera = find_camera(self.cameras, key)
                if camera is not None and camera.get("capture") is not None and self.states:
                    return camera
                left = deadline - time.monotonic()
                if left <= 0 or self.closed is not None:
                    return None
                self.changed.wait(left)

    def angles_since(self, key, moment):
        """The capture angles the camera had in the states that arrived after `moment` (CLOCK_MONOTONIC)."""
        with self.changed:
            later = [s for (_, s), arrived in zip(self.states, self.arrivals) if arrived > moment]
        return [c.get("capture") for c in (find_camera(s["cameras"], key) for s in later) if c is not None]

    def camera_names(self):
        """The cameras listed now, as "name (device)" for messages."""
        with self.changed:
            return ", ".join("%s (%s)" % (c.get("name"), c.get("device")) for c in self.cameras) or "none"

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
