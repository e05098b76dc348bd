#!/usr/bin/python3
"""Take a still from a camera and write it as a JPEG turned upright, with the angle rotationd gives.

usage: capture.py [--socket PATH] [--device DEV] [--source PIPELINE] [--frames N] [--timeout S] OUTPUT.jpg

The camera is found in rotationd's camera list by its device node (--device, default /dev/video0; a
symlink such as /dev/v4l/by-id/... is resolved first), or by one of its capture nodes (a MIPI sensor's
frames arrive on the capture nodes of its receiver or ISP). Its capture angle, the degrees clockwise a frame
must turn to be upright, comes from the service's current state; the script waits up to --timeout
seconds (default 5) for one that has it (a service that was idle decides after a moment). Then a
GStreamer pipeline takes --frames frames (default 10, so that exposure can settle; the last is kept),
turns them with videoflip and encodes them with jpegenc.

--source replaces the default source, "v4l2src device=DEV", with another GStreamer description, such as
"videotestsrc num-buffers=1" for a test without a camera; it must end the stream itself (num-buffers).

Needs python3-gi, gir1.2-gstreamer-1.0, gstreamer1.0-plugins-base and gstreamer1.0-plugins-good
(v4l2src, videoflip, jpegenc). The socket is found as in subscribe.py. Exit status: 0 when the JPEG is
written, 1 when capturing fails, 2 when there is no service, no such camera, or no angle in time.
"""
import argparse
import json
import os
import socket
import sys
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

SYSTEM_SOCKET = "/run/rotationd/rotationd.sock"
# videoflip's video-direction for each clockwise turn.
FLIP = {0: "identity", 90: "90r", 180: "180", 270: "90l"}


def default_socket():
    env = os.environ.get("ROTATIOND_SOCKET")
    if env:
        return env
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if os.geteuid() != 0 and runtime:
        user = os.path.join(runtime, "rotationd.sock")
        if os.path.exists(user):
            return user
    return SYSTEM_SOCKET


class NoAngle(Exception):
    pass


def capture_angle(path, device, timeout):
    """The capture angle rotationd gives the camera whose device is `device`, waiting for one to be known."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        raise NoAngle("no rotation service at %s (%s); start rotationd, or give --socket" % (path, e.strerror))
    deadline = time.monotonic() + timeout
    stream = sock.makefile("r", encoding="utf-8", newline="\n")
    names = []
    with sock:
        hello = json.loads(stream.readline() or "null")
        if not isinstance(hello, dict) or hello.get("type") != "hello" or hello.get("protocol") != 1:
            raise NoAngle("%s does not greet as a rotationd protocol 1 service" % path)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            try:
                line = stream.readline()
            except socket.timeout:
                break
            if not line:
                raise NoAngle("the service closed the connection")
            message = json.loads(line)
            if message.get("type") != "state":
                continue
            names = ["%s (%s)" % (c.get("name"), c.get("device")) for c in message["cameras"]]
            for camera in message["cameras"]:
                # The node opened is the camera's device, or one of its capture nodes (a sensor's).
                opened = camera.get("device") == device or device in (camera.get("nodes") or [])
                if opened and camera.get("capture") is not None:
                    return camera["name"], camera["capture"]
    listed = ", ".join(names) or "none"
    raise NoAngle("no capture angle for %s within %s s; the cameras are: %s" % (device, timeout, listed))


def capture(source, angle, output):
    """Runs SOURCE ! videoflip ! jpegenc into an appsink and writes the last frame to OUTPUT."""
    Gst.init(None)
    description = "%s ! videoconvert ! videoflip video-direction=%s ! jpegenc ! appsink name=sink sync=false" % (source, FLIP[angle])
    try:
        pipeline = Gst.parse_launch(description)
    except GLib.Error as e:
        raise RuntimeError("cannot build %r: %s (are gstreamer1.0-plugins-base and -good installed?)" % (description, e.message))
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    last = None
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        last = sample
    bus = pipeline.get_bus()
    error = bus.pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if error is not None:
        err, detail = error.parse_error()
        raise RuntimeError("%s (%s)" % (err.message, detail))
    if last is None:
        raise RuntimeError("the source delivered no frame")
    buffer = last.get_buffer()
    with open(output, "wb") as f:
        f.write(buffer.extract_dup(0, buffer.get_size()))


def main():
    parser = argparse.ArgumentParser(description="Take a still and write it upright, using rotationd's capture angle.")
    parser.add_argument("output", help="the JPEG file to write")
    parser.add_argument("--socket", default=None, help="the service's socket")
    parser.add_argument("--device", default="/dev/video0", help="the camera's device node (default /dev/video0)")
    parser.add_argument("--source", default=None, help="a GStreamer source description instead of v4l2src")
    parser.add_argument("--frames", type=int, default=10, help="frames to take with v4l2src; the last is kept")
    parser.add_argument("--timeout", type=float, default=5, help="seconds to wait for a capture angle")
    args = parser.parse_args()
    device = os.path.realpath(args.device)
    try:
        name, angle = capture_angle(args.socket or default_socket(), device, args.timeout)
    except NoAngle as e:
        print("capture.py: %s" % e, file=sys.stderr)
        return 2
    if angle not in FLIP:
        print("capture.py: %s needs %s degrees, which is not a quarter turn" % (name, angle), file=sys.stderr)
        return 1
    source = args.source or "v4l2src device=%s num-buffers=%d" % (device, max(1, args.frames))
    try:
        capture(source, angle, args.output)
    except RuntimeError as e:
        print("capture.py: capturing from %s failed: %s" % (device, e), file=sys.stderr)
        return 1
    print("%s: camera %s (%s), turned %d degrees clockwise" % (args.output, name, device, angle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
