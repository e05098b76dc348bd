#!/usr/bin/python3
"""Take a still and write a JPEG whose pixels are as the camera gave them, with the EXIF Orientation that
rotationd gives for the moment the frame was taken.

usage: still.py [--socket PATH] [--camera KEY] [--source PIPELINE] [--frames N] [--timeout S] OUTPUT.jpg

Re-encoding a JPEG to turn it loses quality; capture programs write the Orientation tag instead (EXIF tag
274: 1, 6, 3 or 8 for a picture to be turned 0, 90, 180 or 270 degrees clockwise when shown), and every
viewer turns the picture when it shows it. This program:

1. subscribes to rotationd and keeps the states it publishes (rotation_history.py);
2. finds the camera by --camera KEY, anything a program knows a camera by: its rotationd name, libcamera's
   camera id, its node (default /dev/video0; a symlink such as /dev/v4l/by-id/... is resolved, and a
   sensor's capture nodes count) or udev's ID_PATH (PipeWire's device.bus-path), and waits up to
   --timeout seconds (default 5) until the service gives it an angle;
3. takes --frames frames (default 10, so that exposure can settle; the last is kept) with GStreamer,
   encoded by jpegenc as they come, and notes when the kept frame was taken: the pipeline's clock (the
   system clock, CLOCK_MONOTONIC) at the frame's timestamp, the clock of rotationd's "t";
4. asks for the camera's state at that moment (the shutter moment, not the moment the program gets round
   to asking) and writes the JPEG with an EXIF segment made by GStreamer's tag library from the
   image-orientation tag (rotate-0, rotate-90, rotate-180, rotate-270), which is the "exif" value rotationd
   publishes.

--source replaces "v4l2src device=NODE num-buffers=N" with another GStreamer description, such as
"videotestsrc num-buffers=1" for a test without a camera; it must end the stream itself.

Needs python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0 (GstTag), gstreamer1.0-plugins-base
and gstreamer1.0-plugins-good (v4l2src, jpegenc). Exit status: 0 when the JPEG is written, 1 when
capturing fails, 2 when there is no service, no such camera, or no angle in time.
"""
import argparse
import os
import sys
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstTag", "1.0")
from gi.repository import GLib, Gst, GstTag  # noqa: E402

# rotation_history.py sits beside this file; leave no compiled copy there (it is installed as documentation).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rotation_history import NoService, RotationHistory  # noqa: E402

# GStreamer's image-orientation tag for each EXIF Orientation rotationd publishes.
ORIENTATION_TAG = {1: "rotate-0", 6: "rotate-90", 3: "rotate-180", 8: "rotate-270"}


def frame_moment(pipeline, buffer):
    """When `buffer` was taken, in CLOCK_MONOTONIC seconds: the pipeline's base time plus the buffer's
    timestamp, on GStreamer's system clock, which is CLOCK_MONOTONIC (as V4L2's buffer timestamps are, which
    v4l2src turns into these); the time it arrived when the pipeline runs on another clock."""
    clock = pipeline.get_clock()
    if (isinstance(clock, Gst.SystemClock) and clock.props.clock_type == Gst.ClockType.MONOTONIC
            and buffer.pts != Gst.CLOCK_TIME_NONE):
        return (pipeline.get_base_time() + buffer.pts) / 1e9
    return time.monotonic()


def take(source):
    """Runs SOURCE ! jpegenc into an appsink; returns the last frame's JPEG bytes and when it was taken."""
    Gst.init(None)
    description = "%s ! videoconvert ! jpegenc ! appsink name=sink sync=false" % source
    try:
        pipeline = Gst.parse_launch(description)
    except GLib.Error as e:
        raise RuntimeError("cannot build %r: %s (are gstreamer1.0-plugins-base and -good installed?)" % (description, e.message))
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    last = moment = None
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        last, moment = sample, frame_moment(pipeline, sample.get_buffer())
    error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if error is not None:
        err, detail = error.parse_error()
        raise RuntimeError("%s (%s)" % (err.message, detail))
    if last is None:
        raise RuntimeError("the source delivered no frame")
    buffer = last.get_buffer()
    return buffer.extract_dup(0, buffer.get_size()), moment


def with_orientation(jpeg, tag):
    """The JPEG with an APP1 EXIF segment holding the Orientation for GStreamer's image-orientation `tag`,
    after the start of image and the JFIF segment, if there is one. The pixels are left as they are."""
    tags = Gst.TagList.new_empty()
    tags.add_value(Gst.TagMergeMode.REPLACE, Gst.TAG_IMAGE_ORIENTATION, tag)
    tiff = GstTag.tag_list_to_exif_buffer_with_tiff_header(tags)
    payload = b"Exif\0\0" + tiff.extract_dup(0, tiff.get_size())
    segment = b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload
    if jpeg[:2] != b"\xff\xd8":
        raise RuntimeError("jpegenc did not produce a JPEG")
    at = 2
    if jpeg[2:4] == b"\xff\xe0":  # JFIF APP0 first, as JFIF readers expect
        at = 4 + int.from_bytes(jpeg[4:6], "big")
    return jpeg[:at] + segment + jpeg[at:]


def main():
    parser = argparse.ArgumentParser(description="Take a still with the EXIF Orientation rotationd gives.")
    parser.add_argument("output", help="the JPEG file to write")
    parser.add_argument("--socket", default=None, help="the service's socket")
    parser.add_argument("--camera", default="/dev/video0",
                        help="the camera: its name, libcamera id, node or bus path (default /dev/video0)")
    parser.add_argument("--source", default=None, help="a GStreamer source description instead of v4l2src")
    parser.add_argument("--frames", type=int, default=10, help="frames to take with v4l2src; the last is kept")
    parser.add_argument("--timeout", type=float, default=5, help="seconds to wait for a capture angle")
    args = parser.parse_args()
    try:
        history = RotationHistory(args.socket)
    except NoService as e:
        print("still.py: %s" % e, file=sys.stderr)
        return 2
    camera = history.wait_for_angle(args.camera, args.timeout)
    if camera is None:
        print("still.py: no capture angle for %s within %s s; the cameras are: %s"
              % (args.camera, args.timeout, history.camera_names()), file=sys.stderr)
        return 2
    node = args.camera if args.camera.startswith("/dev/") else (camera.get("nodes") or [camera.get("device")])[0]
    source = args.source or "v4l2src device=%s num-buffers=%d" % (node, max(1, args.frames))
    try:
        jpeg, moment = take(source)
    except RuntimeError as e:
        print("still.py: capturing from %s failed: %s" % (node, e), file=sys.stderr)
        return 1
    camera, angle, exif = history.angle_at(args.camera, moment)
    history.close()
    if exif not in ORIENTATION_TAG:
        print("still.py: rotationd gives no orientation for %s at the moment of the frame (%.3f)" % (args.camera, moment),
              file=sys.stderr)
        return 2
    with open(args.output, "wb") as f:
        f.write(with_orientation(jpeg, ORIENTATION_TAG[exif]))
    print("%s: camera %s (%s), EXIF Orientation %d (%s): shown turned %d degrees clockwise; the pixels are as captured"
          % (args.output, camera["name"], camera.get("device"), exif, ORIENTATION_TAG[exif], angle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
