#!/usr/bin/python3
"""Real GStreamer pipelines with rotationdtag against a served replay, read back by outside tools.

usage: pipelines.py --rotationd BIN --scratch DIR

Runs with the rotationdtag plugin found through GST_PLUGIN_PATH. Starts its own rotationd serving a trace that
holds the device upright, then turns it left-up, bottom-up, right-up and upright again, with a back camera
mounted at 0, so that the capture angle is the rotation and the EXIF Orientation goes 1, 6, 3, 8, 1. Three live
pipelines run side by side while the device turns:

  follow:   videotestsrc ! rotationdtag camera=back ! tee ! jpegenc ! jifmux ! multifilesink
                                                       ! videoflip video-direction=auto ! fakesink
  lock:     ... ! rotationdtag camera=/dev/video0 mode=lock ! jpegenc ! jifmux ! multifilesink
  upstream: ... ! taginject image-orientation=rotate-90 ! rotationdtag camera=back ! jpegenc ! jifmux ! ...

exiftool reads each JPEG's Orientation, and each frame's is compared with the state rotationd published for its
capture time (base time + running time on the pipeline's clock, CLOCK_MONOTONIC), as an independent subscriber
(Docs/examples/rotation_history.py) received it. A change reaches a subscriber a few milliseconds after its t, so
a frame taken within SETTLE seconds after a change may still carry the state before it; every other frame must
carry exactly the state of its moment. Then: a pipeline started before the service passes its buffers untouched,
warns once and picks the angle up when the service appears; and a service that accepts the connection and never
speaks holds no buffer up.

Each check prints "ok - NAME" or "FAIL - NAME: why"; the run ends with "N passed, N failed", exit status 1 on a
failure.
"""
import argparse
import hashlib
import os
import socket
import subprocess
import sys
import threading
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "Docs", "examples"))
from rotation_history import RotationHistory  # noqa: E402

SETTLE = 0.25
EXIF = {0: 1, 90: 6, 180: 3, 270: 8}
TAG = {"rotate-0": 0, "rotate-90": 90, "rotate-180": 180, "rotate-270": 270}
POSES = [(0, -9.81, 0), (9.81, 0, 0), (0, 9.81, 0), (-9.81, 0, 0), (0, -9.81, 0)]
LEAD, HOLD, RATE, FPS = 1.5, 1.3, 100, 10

results = {"passed": 0, "failed": 0}
results_lock = threading.Lock()


def check(name, ok, why=""):
    with results_lock:
        if ok:
            results["passed"] += 1
            print("ok - %s" % name)
        else:
            results["failed"] += 1
            print("FAIL - %s: %s" % (name, why))
        sys.stdout.flush()


def write_trace(path):
    """LEAD s upright, then each further pose of POSES for HOLD s, at RATE Hz (the format of Docs/trace-format.md)."""
    with open(path, "w") as f:
        f.write("t,x,y,z\n")
        t = 0.0
        for i, pose in enumerate(POSES):
            for _ in range(int(round((LEAD if i == 0 else HOLD) * RATE))):
                f.write("%.4f,%.3f,%.3f,%.3f\n" % ((t,) + pose))
                t += 1.0 / RATE


def start_service(binary, trace, sock, log):
    proc = subprocess.Popen([binary, "--replay", trace, "--socket", sock, "--camera", "back:back:0:/dev/video0"],
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock)
            s.close()
            return proc
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError("rotationd did not serve on %s: %s" % (sock, open(log).read()))


def stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Recorder:
    """For one rotationdtag: each buffer's capture moment (CLOCK_MONOTONIC s) and the image-orientation in force on
    its source pad when it passed, and a digest of each buffer on both pads."""

    def __init__(self, pipeline, tag):
        self.pipeline = pipeline
        self.frames = []          # (pts, moment, orientation or None)
        self.orientation = None
        self.tag_events = []      # the image-orientation values sent downstream, in order
        self.digests_in, self.digests_out = [], []
        self.lock = threading.Lock()
        src, sink = tag.get_static_pad("src"), tag.get_static_pad("sink")
        src.add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, self.on_event)
        src.add_probe(Gst.PadProbeType.BUFFER, self.on_buffer)
        sink.add_probe(Gst.PadProbeType.BUFFER, self.on_input)

    @staticmethod
    def digest(buffer):
        ok, info = buffer.map(Gst.MapFlags.READ)
        d = hashlib.sha1(bytes(info.data)).hexdigest() if ok else None
        if ok:
            buffer.unmap(info)
        return d

    def on_event(self, pad, info):
        event = info.get_event()
        if event.type == Gst.EventType.TAG:
            ok, value = event.parse_tag().get_string(Gst.TAG_IMAGE_ORIENTATION)
            if ok:
                with self.lock:
                    self.orientation = value
                    self.tag_events.append(value)
        return Gst.PadProbeReturn.OK

    def on_input(self, pad, info):
        self.digests_in.append(self.digest(info.get_buffer()))
        return Gst.PadProbeReturn.OK

    def on_buffer(self, pad, info):
        buffer = info.get_buffer()
        segment = pad.get_sticky_event(Gst.EventType.SEGMENT, 0).parse_segment()
        running = segment.to_running_time(Gst.Format.TIME, buffer.pts)
        moment = (self.pipeline.get_base_time() + running) / 1e9
        with self.lock:
            self.frames.append((buffer.pts, moment, self.orientation))
        self.digests_out.append(self.digest(buffer))
        return Gst.PadProbeReturn.OK


def replace_tags(pipeline, sub_bin, element):
    """jifmux keeps the first orientation it was told unless told to replace it: Docs/capture-programs.md's
    recipe, for every jifmux that enters the pipeline."""
    factory = element.get_factory()
    if factory is not None and factory.get_name() == "jifmux":
        element.set_tag_merge_mode(Gst.TagMergeMode.REPLACE)


def build(description):
    pipeline = Gst.Pipeline.new()
    pipeline.connect("deep-element-added", replace_tags)
    pipeline.add(Gst.parse_bin_from_description(description, False))
    return pipeline


def run_all(pipelines, timeout):
    for p in pipelines:
        p.set_state(Gst.State.PLAYING)
    deadline = time.monotonic() + timeout
    errors, warnings, done = [], [], set()
    while len(done) < len(pipelines) and time.monotonic() < deadline:
        for i, p in enumerate(pipelines):
            if i in done:
                continue
            m = p.get_bus().timed_pop_filtered(10 * Gst.MSECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR | Gst.MessageType.WARNING)
            if m is None:
                continue
            if m.type == Gst.MessageType.WARNING:
                warnings.append((m.src.get_name(), m.parse_warning()[0].message, m.parse_warning()[1]))
                continue
            if m.type == Gst.MessageType.ERROR:
                errors.append("%s: %s" % (m.src.get_name(), m.parse_error()[0].message))
            done.add(i)
    for p in pipelines:
        p.set_state(Gst.State.NULL)
    return errors, warnings, len(done) == len(pipelines)


def exif_orientations(files):
    """Each file's EXIF Orientation as exiftool reads it (one run for all)."""
    out = subprocess.run(["exiftool", "-n", "-s3", "-T", "-FileName", "-Orientation"] + files,
                         capture_output=True, text=True, timeout=60).stdout
    values = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 2:
            values[parts[0]] = int(parts[1]) if parts[1].isdigit() else None
    return [values.get(os.path.basename(f)) for f in files]


def expected_at(history, moment, key="back"):
    """(capture angle now, the one before when the moment is within SETTLE after a change) at `moment`."""
    state = history.state_at(moment)
    before = history.state_at(moment - SETTLE)

    def capture(s):
        if s is None:
            return None
        for c in s.get("cameras", []):
            if c.get("name") == key or c.get("device") == key:
                return c.get("capture")
        return None
    return capture(state), capture(before)


def judge(name, history, frames, values, want, exact=None):
    """Each frame's value against want(capture angle of its moment); within SETTLE after a change, the earlier one
    may still hold. Returns the strictly judged values, in order."""
    strict, bad = [], []
    for i, ((pts, moment, _), value) in enumerate(zip(frames, values)):
        now, before = expected_at(history, moment)
        if now is None:
            bad.append("frame %d at %.3f: the service had no angle then" % (i, moment))
            continue
        if value == want(now):
            if now == before:
                strict.append(value)
        elif before is not None and value == want(before) and now != before:
            pass
        else:
            bad.append("frame %d at %.3f: %r, the state then says %r" % (i, moment, value, want(now)))
    check(name, not bad and len(frames) == len(values) and len(values) > 0, "; ".join(bad[:5]) or "no frames")
    return strict


def runs(values):
    """The values with repeats collapsed."""
    out = []
    for v in values:
        if not out or out[-1] != v:
            out.append(v)
    return out


def turning(args, scratch):
    trace = os.path.join(scratch, "turns.csv")
    write_trace(trace)
    sock = os.path.join(scratch, "turns.sock")
    service = start_service(args.rotationd, trace, sock, os.path.join(scratch, "turns.log"))
    try:
        history = RotationHistory(sock)
        frames = int((LEAD - 0.5 + HOLD * (len(POSES) - 1) + 0.2) * FPS)
        src = ("videotestsrc is-live=true num-buffers=%d pattern=ball ! video/x-raw,width=320,height=240,framerate=%d/1"
               % (frames, FPS))
        out = lambda name: os.path.join(scratch, name + "-%03d.jpg")
        follow = build("%s ! rotationdtag name=tag camera=back socket=%s ! tee name=t "
                       "t. ! queue ! jpegenc ! jifmux name=mux ! multifilesink location=%s "
                       "t. ! queue ! videoflip video-direction=auto ! fakesink name=flipped"
                       % (src, sock, out("follow")))
        lock = build("%s ! rotationdtag name=tag camera=/dev/video0 mode=lock socket=%s ! jpegenc ! jifmux name=mux "
                     "! multifilesink location=%s" % (src, sock, out("lock")))
        upstream = build("%s ! taginject tags=\"image-orientation=rotate-90\" ! rotationdtag name=tag camera=back socket=%s "
                         "! jpegenc ! jifmux name=mux ! multifilesink location=%s" % (src, sock, out("upstream")))
        recorders = {n: Recorder(p, p.get_by_name("tag")) for n, p in
                     [("follow", follow), ("lock", lock), ("upstream", upstream)]}
        flipped = []
        flip_pad = follow.get_by_name("flipped").get_static_pad("sink")

        def on_flipped(pad, info):
            s = pad.get_current_caps().get_structure(0)
            flipped.append((info.get_buffer().pts, s.get_int("width")[1], s.get_int("height")[1]))
            return Gst.PadProbeReturn.OK
        flip_pad.add_probe(Gst.PadProbeType.BUFFER, on_flipped)
        # The pipelines start during the upright lead, so that their first frames are taken upright.
        errors, warnings, finished = run_all([follow, lock, upstream], timeout=frames / FPS + 20)
        time.sleep(SETTLE)
        check("three live pipelines with rotationdtag run to their end without an error or a warning",
              finished and not errors and not warnings, "errors %s, warnings %s" % (errors, warnings))

        files = {n: [out(n) % i for i in range(len(r.frames))] for n, r in recorders.items()}
        for n, r in recorders.items():
            written = sorted(f for f in os.listdir(scratch) if f.startswith(n + "-"))
            check("%s: one JPEG per frame (%d)" % (n, len(r.frames)), len(written) == len(r.frames) == frames,
                  "%d files, %d frames through the element, %d sent" % (len(written), len(r.frames), frames))
            check("%s: every buffer leaves the element as it came" % n, r.digests_in == r.digests_out,
                  "%d in, %d out" % (len(r.digests_in), len(r.digests_out)))

        f = recorders["follow"]
        exif = exif_orientations(files["follow"])
        strict = judge("follow: exiftool reads in each JPEG the EXIF Orientation of the state at its frame's capture time",
                       history, f.frames, exif, lambda angle: EXIF[angle])
        check("follow: the JPEGs go through EXIF 1, 6, 3, 8 and back to 1 as the device turns", runs(strict) == [1, 6, 3, 8, 1],
              "%s" % runs(exif))
        tags = [TAG.get(o) for (_, _, o) in f.frames]
        judge("follow: the image-orientation in force at each buffer is its capture time's capture angle",
              history, f.frames, tags, lambda angle: angle)
        check("follow: a tag before the first buffer and one at each change, no more", runs(f.tag_events) == f.tag_events and
              [TAG[t] for t in f.tag_events] == [0, 90, 180, 270, 0] and f.frames[0][2] == "rotate-0", "%s" % f.tag_events)

        by_pts = {pts: (w, h) for pts, w, h in flipped}
        sizes = [by_pts.get(pts) for pts, _, _ in f.frames]
        mismatched = [(i, o, s) for i, ((_, _, o), s) in enumerate(zip(f.frames, sizes))
                      if s != ((240, 320) if TAG.get(o) in (90, 270) else (320, 240))]
        check("videoflip video-direction=auto turns each 320x240 frame into 240x320 exactly while its tag says 90 or 270",
              not mismatched and len(flipped) == frames, "%s; %d frames flipped" % (mismatched[:5], len(flipped)))
        judge("videoflip's output size follows the capture angle at each frame's capture time", history, f.frames, sizes,
              lambda angle: (240, 320) if angle in (90, 270) else (320, 240))

        lk = recorders["lock"]
        exif = exif_orientations(files["lock"])
        first_now, first_before = expected_at(history, lk.frames[0][1])
        check("lock: every JPEG carries the EXIF Orientation of the first frame's capture time, through the turns",
              len(set(exif)) == 1 and exif[0] in (EXIF.get(first_now), EXIF.get(first_before)) and lk.tag_events == ["rotate-0"],
              "EXIF %s, tags %s, first frame's state %s" % (runs(exif), lk.tag_events, first_now))

        up = recorders["upstream"]
        exif = exif_orientations(files["upstream"])
        # Upstream says rotate-90 (a mount it applies); the element adds only the device's turn: for a back camera
        # mounted at 0 that is the rotation, so 90 + rotation.
        strict = judge("upstream rotate-90: each JPEG's EXIF is upstream's 90 plus the device's turn at its capture time",
                       history, up.frames, exif, lambda angle: EXIF[(90 + angle) % 360])
        check("upstream rotate-90: the JPEGs go through EXIF 6, 3, 8, 1, 6", runs(strict) == [6, 3, 8, 1, 6], "%s" % runs(exif))
        history.close()
    finally:
        stop(service)


def late_service(args, scratch):
    """The service appears after the pipeline started: buffers pass untouched, one warning, then tags."""
    trace = os.path.join(scratch, "held.csv")
    with open(trace, "w") as f:
        f.write("t,x,y,z\n")
        for i in range(600):
            f.write("%.4f,9.810,0.000,0.000\n" % (i / 100))
    sock = os.path.join(scratch, "late.sock")
    # Six seconds of frames: the library retries after 0.1, 0.2, 0.4, 0.8, 1.6 and then every 2 s, so the service,
    # started once 8 frames have passed, is found with time to spare however slowly it starts.
    frames = 60
    pipeline = build("videotestsrc is-live=true num-buffers=%d ! video/x-raw,width=64,height=48,framerate=%d/1 "
                     "! rotationdtag name=tag camera=back socket=%s ! fakesink" % (frames, FPS, sock))
    rec = Recorder(pipeline, pipeline.get_by_name("tag"))
    started = {}

    def start_later():
        deadline = time.monotonic() + 20
        while len(rec.frames) < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        started["at"] = time.monotonic()
        started["service"] = start_service(args.rotationd, trace, sock, os.path.join(scratch, "late.log"))
    threading.Thread(target=start_later, daemon=True).start()
    errors, warnings, finished = run_all([pipeline], timeout=20)
    service = started.get("service")
    try:
        ours = [w for w in warnings if w[0] == "tag"]
        check("without the service the element warns once, naming the socket and the fix, and the pipeline runs on",
              finished and not errors and len(ours) == 1 and sock in ours[0][2] and "start" in ours[0][2],
              "errors %s, warnings %s" % (errors, warnings))
        early = [o for (_, m, o) in rec.frames if m < started.get("at", 0) - 0.1]
        check("until the service appears the buffers pass with no orientation tag", len(early) >= 5 and all(o is None for o in early),
              "%d early frames, tags %s" % (len(early), runs(early)))
        check("the buffers pass untouched", rec.digests_in == rec.digests_out and len(rec.digests_out) == frames, "%d" % len(rec.digests_out))
        check("when the service appears the element picks the angle up: left-up, back camera mounted at 0: rotate-90",
              rec.tag_events == ["rotate-90"] and rec.frames[-1][2] == "rotate-90", "tags %s" % rec.tag_events)
    finally:
        if service:
            stop(service)


def silent_service(args, scratch):
    """A socket that is listened on but never answers holds no buffer up."""
    sock_path = os.path.join(scratch, "silent.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(16)
    pipeline = build("videotestsrc num-buffers=300 ! video/x-raw,width=64,height=48 ! rotationdtag name=tag camera=back "
                     "socket=%s ! fakesink sync=false" % sock_path)
    rec = Recorder(pipeline, pipeline.get_by_name("tag"))
    begun = time.monotonic()
    errors, _, finished = run_all([pipeline], timeout=20)
    took = time.monotonic() - begun
    check("a service that accepts the connection and never speaks holds no buffer up: 300 buffers pass in %.2f s" % took,
          finished and not errors and len(rec.frames) == 300 and all(o is None for (_, _, o) in rec.frames),
          "finished %s, errors %s, %d frames" % (finished, errors, len(rec.frames)))
    listener.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rotationd", required=True)
    parser.add_argument("--scratch", required=True)
    args = parser.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("rotationdtag") is None:
        print("FAIL - the rotationdtag element is not found: is GST_PLUGIN_PATH the directory of libgstrotationd.so?")
        return 1
    def run(name, test):
        d = os.path.join(args.scratch, name)
        os.makedirs(d, exist_ok=True)
        try:
            test(args, d)
        except Exception as e:  # a broken pipeline fails the run, with what broke
            check("%s pipelines" % name, False, "%s: %s" % (type(e).__name__, e))
    # The service that appears late and the silent one beside the turning device: each has its own socket.
    others = threading.Thread(target=lambda: [run("late", late_service), run("silent", silent_service)])
    others.start()
    run("turning", turning)
    others.join()
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
