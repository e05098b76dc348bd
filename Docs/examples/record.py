#!/usr/bin/python3
"""Record a short MP4 whose video track carries the capture angle rotationd gave at its first frame.

usage: record.py [--socket PATH] [--camera KEY] [--source PIPELINE] [--frames N] [--timeout S] OUTPUT.mp4

An MP4 (ISO base media) track has one transformation matrix, in its track header ("tkhd"), which players
apply to every frame: a recording has one orientation, and it must be the one the device had when the
recording started, not when the program stops it. This program:

1. subscribes to rotationd and keeps the states it publishes (rotation_history.py);
2. finds the camera by --camera KEY (its rotationd name, libcamera's camera id, its node, default
   /dev/video0, or udev's ID_PATH) and waits up to --timeout seconds (default 5) for its angle;
3. records --frames frames (default 90) with GStreamer (x264enc, mp4mux) and notes when the first frame was
   taken: the pipeline's clock (the system clock, CLOCK_MONOTONIC) at its timestamp;
4. locks the camera's capture angle at that moment, keeps recording whatever the device does, and when
   the stream ends writes the angle into the video track's matrix: the stored frames are shown turned that
   many degrees clockwise. The pixels are not turned.

GStreamer 1.22's mp4mux does not write a matrix from the image-orientation tag, so the matrix is set in the
finished file's track header, as the format defines it (ISO/IEC 14496-12, 8.3.2): for a turn of a degrees
clockwise, (a, b, c, d) = (cos a, sin a, -sin a, cos a) in 16.16 fixed point, w = 1 in 2.30.

--source replaces "v4l2src device=NODE num-buffers=N" with another GStreamer description, such as
"videotestsrc is-live=true num-buffers=30" for a test without a camera; it must end the stream itself.

Needs python3-gi, gir1.2-gstreamer-1.0, gstreamer1.0-plugins-base, gstreamer1.0-plugins-good (v4l2src,
mp4mux) and gstreamer1.0-plugins-ugly (x264enc). Exit status: 0 when the file is written, 1 when recording
fails, 2 when there is no service, no such camera, or no angle in time.
"""
import argparse
import os
import struct
import sys
import threading
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

# rotation_history.py sits beside this file; leave no compiled copy there (it is installed as documentation).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rotation_history import NoService, RotationHistory  # noqa: E402

ONE = 0x10000  # 1.0 in 16.16 fixed point
# The track matrix's a, b, c, d for each clockwise turn; u = v = 0, w = 1.0 in 2.30; no translation.
MATRIX = {0: (ONE, 0, 0, ONE), 90: (0, ONE, -ONE, 0), 180: (-ONE, 0, 0, -ONE), 270: (0, -ONE, ONE, 0)}


def boxes(data, start, end):
    """The ISO BMFF boxes in data[start:end]: (type, box start, payload start, box end)."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            size = struct.unpack_from(">Q", data, at + 8)[0]
            header = 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise ValueError("a malformed box at byte %d" % at)
        yield kind, at, at + header, at + size
        at += size


def set_video_matrix(path, angle):
    """Writes the matrix for `angle` degrees clockwise into the track header of the video track of `path`."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        moov = next((b for b in boxes(data, 0, len(data)) if b[0] == b"moov"), None)
        if moov is None:
            raise ValueError("no moov box: the recording was not finished")
        for kind, _, payload, end in boxes(data, moov[2], moov[3]):
            if kind != b"trak":
                continue
            inner = {k: (s, p, e) for k, s, p, e in boxes(data, payload, end)}
            mdia = inner.get(b"mdia")
            handler = {k: (p, e) for k, _, p, e in boxes(data, mdia[1], mdia[2])}.get(b"hdlr") if mdia else None
            # hdlr: version and flags (4), pre_defined (4), then the handler type.
            if handler is None or data[handler[0] + 8:handler[0] + 12] != b"vide" or b"tkhd" not in inner:
                continue
            tkhd = inner[b"tkhd"][1]
            version = data[tkhd]
            # After version/flags: times and track id (v0: 4+4+4+4+4, v1: 8+8+4+4+8), reserved (8), layer,
            # alternate group, volume, reserved (2 each): then the nine matrix values.
            matrix = tkhd + 4 + (20 if version == 0 else 32) + 8 + 8
            a, b, c, d = MATRIX[angle]
            struct.pack_into(">9i", data, matrix, a, b, 0, c, d, 0, 0, 0, 0x40000000)
            f.seek(0)
            f.write(data)
            return
        raise ValueError("no video track")


class Recording:
    """A GStreamer recording into an MP4 that notes when its first frame was taken."""

    def __init__(self, source, output):
        Gst.init(None)
        description = ("%s ! videoconvert name=first ! video/x-raw,format=I420 ! x264enc ! mp4mux ! filesink location=%s"
                       % (source, output))
        try:
            self.pipeline = Gst.parse_launch(description)
        except GLib.Error as e:
            raise RuntimeError("cannot build %r: %s (are gstreamer1.0-plugins-good and -ugly installed?)" % (description, e.message))
        self.first_frame = None
        self.started = threading.Event()
        pad = self.pipeline.get_by_name("first").get_static_pad("sink")
        pad.add_probe(Gst.PadProbeType.BUFFER, self._frame)

    def _frame(self, pad, info):
        if self.first_frame is None:
            buffer = info.get_buffer()
            clock = self.pipeline.get_clock()
            if (isinstance(clock, Gst.SystemClock) and clock.props.clock_type == Gst.ClockType.MONOTONIC
                    and buffer.pts != Gst.CLOCK_TIME_NONE):
                # The system clock is CLOCK_MONOTONIC; base time plus the timestamp is when the frame was taken.
                self.first_frame = (self.pipeline.get_base_time() + buffer.pts) / 1e9
            else:
                self.first_frame = time.monotonic()
            self.started.set()
        return Gst.PadProbeReturn.REMOVE

    def run(self, on_start):
        """Records until the stream ends; calls `on_start` with the first frame's moment once it is known."""
        self.pipeline.set_state(Gst.State.PLAYING)
        bus = self.pipeline.get_bus()
        locked = False
        try:
            while True:
                if not locked and self.started.is_set():
                    on_start(self.first_frame)
                    locked = True
                message = bus.timed_pop_filtered(50 * Gst.MSECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
                if message is None:
                    continue
                if message.type == Gst.MessageType.ERROR:
                    err, detail = message.parse_error()
                    raise RuntimeError("%s (%s)" % (err.message, detail))
                break
        finally:
            self.pipeline.set_state(Gst.State.NULL)
        if not locked:
            if not self.started.is_set():
                raise RuntimeError("the source delivered no frame")
            on_start(self.first_frame)


def main():
    parser = argparse.ArgumentParser(description="Record an MP4 whose track carries rotationd's angle at its first frame.")
    parser.add_argument("output", help="the MP4 file to write")
    parser.add_argument("--socket", default=None, help="the service's socket")
    parser.add_argument("--camera", default="/dev/video0",
                        help="the camera: its name, libcamera id, node or bus path (default /dev/video0)")
    parser.add_argument("--source", default=None, help="a GStreamer source description instead of v4l2src")
    parser.add_argument("--frames", type=int, default=90, help="frames to record with v4l2src")
    parser.add_argument("--timeout", type=float, default=5, help="seconds to wait for a capture angle")
    args = parser.parse_args()
    try:
        history = RotationHistory(args.socket)
    except NoService as e:
        print("record.py: %s" % e, file=sys.stderr)
        return 2
    camera = history.wait_for_angle(args.camera, args.timeout)
    if camera is None:
        print("record.py: no capture angle for %s within %s s; the cameras are: %s"
              % (args.camera, args.timeout, history.camera_names()), file=sys.stderr)
        return 2
    node = args.camera if args.camera.startswith("/dev/") else (camera.get("nodes") or [camera.get("device")])[0]
    source = args.source or "v4l2src device=%s num-buffers=%d" % (node, max(1, args.frames))
    lock = {}

    def on_start(moment):
        cam, angle, _ = history.angle_at(args.camera, moment)
        lock.update(camera=cam, angle=angle, moment=moment, at=time.monotonic())

    try:
        Recording(source, args.output).run(on_start)
    except RuntimeError as e:
        print("record.py: recording from %s failed: %s" % (node, e), file=sys.stderr)
        return 1
    angle = lock.get("angle")
    if angle not in MATRIX:
        print("record.py: rotationd gives no capture angle for %s at the first frame (%.3f)" % (args.camera, lock["moment"]),
              file=sys.stderr)
        return 2
    later = [a for a in history.angles_since(args.camera, lock["at"]) if a is not None and a != angle]
    history.close()
    try:
        set_video_matrix(args.output, angle)
    except (OSError, ValueError) as e:
        print("record.py: cannot set the track matrix of %s: %s" % (args.output, e), file=sys.stderr)
        return 1
    print("%s: camera %s (%s), track matrix turns it %d degrees clockwise, the angle at its first frame (t=%.3f)"
          % (args.output, lock["camera"]["name"], lock["camera"].get("device"), angle, lock["moment"]))
    if later:
        print("%s: the device turned during the recording (to %s degrees); the track keeps %d, as a track holds one orientation"
              % (args.output, ", ".join(str(a) for a in later), angle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
