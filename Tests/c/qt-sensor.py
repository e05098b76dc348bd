#!/usr/bin/python3
"""The rotationd QtSensors backend against a served replay, through a real QOrientationSensor program
(qt/tests/follow-orientation.cpp) and compared with rotwatch --json.

  qt-sensor.py --program FOLLOW --plugins QT_PLUGIN_PATH --lib LD_LIBRARY_PATH --bin-dir DIR --scratch DIR

In order: with no service the sensor reports sensorError(ENOTCONN); a service then serves a replay that lies
face down, face up, and turns through every rotation, and the readings are rotwatch's states as QtSensors
names them, in the same order, each stamped with the state's t and come within 0.3 s of it; the service stops
(sensorError again) and restarts, and the readings resume. Last, a sensor started without an identifier takes
the backend that Sensors.conf in XDG_CONFIG_HOME names. Prints "ok - ..." or "FAIL - ..." lines; exits 1 on a
failure.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

ENOTCONN = 107
LIMIT = 0.3
status = 0


def ok(message):
    print(f"ok - {message}", flush=True)


def fail(message):
    global status
    status = 1
    print(f"FAIL - {message}", flush=True)


def write_trace(path, holds):
    poses = {"up": (0, -9.81, 0), "left": (9.81, 0, 0), "bottom": (0, 9.81, 0), "right": (-9.81, 0, 0),
             "face-down": (0, 0, -9.81), "face-up": (0, 0, 9.81)}
    rows = []
    for pose, seconds in holds:
        rows += [poses[pose]] * int(seconds * 100)
    with open(path, "w") as f:
        f.write("t,x,y,z\n")
        for i, p in enumerate(rows):
            f.write("%.4f,%.3f,%.3f,%.3f\n" % ((i / 100,) + p))


def qt_name(state):
    """The QOrientationReading a rotwatch state maps to, or None while the rotation is undecided."""
    if state.get("flat") and state.get("tilt") == "face-up":
        return "FaceUp"
    if state.get("flat") and state.get("tilt") == "face-down":
        return "FaceDown"
    return {0: "TopUp", 90: "LeftUp", 180: "TopDown", 270: "RightUp"}.get(state.get("rotation"))


def lines(path):
    with open(path) as f:
        return f.read().splitlines()


def readings(path):
    """(received µs, timestamp µs, name) for each reading line."""
    out = []
    for line in lines(path):
        parts = line.split()
        if parts and parts[0] == "reading":
            out.append((int(parts[1]), int(parts[2]), parts[3]))
    return out


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def wait_socket(path, seconds=10):
    def accepting():
        with socket.socket(socket.AF_UNIX) as s:
            try:
                s.connect(path)
                return True
            except OSError:
                return False
    return wait_for(accepting, seconds)


def main():
    parser = argparse.ArgumentParser()
    for option in ("--program", "--plugins", "--lib", "--bin-dir", "--scratch"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    scratch = args.scratch
    os.makedirs(scratch, exist_ok=True)
    sock = os.path.join(scratch, "q.sock")
    env = dict(os.environ, QT_PLUGIN_PATH=args.plugins, LD_LIBRARY_PATH=args.lib, ROTATIOND_SOCKET=sock,
               XDG_CONFIG_HOME=os.path.join(scratch, "no-config"), XDG_CONFIG_DIRS=os.path.join(scratch, "no-config"))
    rotationd = os.path.join(args.bin_dir, "rotationd")
    children = []

    def serve(trace, tag):
        log = open(os.path.join(scratch, f"{tag}.log"), "w")
        child = subprocess.Popen([rotationd, "--replay", trace, "--socket", sock], stdout=subprocess.DEVNULL, stderr=log)
        children.append(child)
        return child

    try:
        follow_out = os.path.join(scratch, "follow.out")
        follow = subprocess.Popen([args.program, "--identifier", "rotationd.orientation", "--seconds", "30"], env=env,
                                  stdout=open(follow_out, "w"), stderr=open(os.path.join(scratch, "follow.err"), "w"))
        children.append(follow)
        if not wait_for(lambda: f"error {ENOTCONN}" in lines(follow_out), 5):
            fail(f"with no service the sensor reported no sensorError({ENOTCONN}) within 5 s: {lines(follow_out)}")
            return
        ok(f"with no service the sensor reports sensorError({ENOTCONN}) (ENOTCONN)")
        if lines(follow_out)[0] != "backend rotationd.orientation":
            fail(f"the program's sensor connected to {lines(follow_out)[0]}")

        first = os.path.join(scratch, "first.csv")
        write_trace(first, [("up", 1.5), ("face-down", 1.0), ("face-up", 1.0), ("up", 0.6), ("left", 0.5),
                            ("bottom", 0.5), ("right", 0.5)])
        service = serve(first, "first")
        served_at = time.monotonic()
        if not wait_socket(sock):
            fail("rotationd did not serve the replay")
            return
        watch_out = os.path.join(scratch, "rotwatch.out")
        watch = subprocess.Popen([os.path.join(args.bin_dir, "rotwatch"), "--json", "--socket", sock],
                                 stdout=open(watch_out, "w"), stderr=subprocess.DEVNULL)
        children.append(watch)
        if not wait_for(lambda: "replay finished" in open(os.path.join(scratch, "first.log")).read(), 15):
            fail("the replay did not finish within 15 s")
            return
        time.sleep(0.4)
        states = [json.loads(line) for line in lines(watch_out)]
        changes = []  # (t µs, name), as rotwatch saw them
        for s in states:
            name = qt_name(s) if s.get("type") == "state" else None
            if name and (not changes or changes[-1][1] != name):
                changes.append((round(s["t"] * 1e6), name))
        got = readings(follow_out)
        if not got:
            fail("the sensor gave no reading from the served replay")
            return
        start = next((i for i, c in enumerate(changes) if abs(c[0] - got[0][1]) <= 1), None)
        if start is None:
            fail(f"the first reading {got[0]} is no state rotwatch saw: {changes}")
            return
        expected = changes[start:]
        same = len(got) == len(expected) and all(abs(g[1] - e[0]) <= 1 and g[2] == e[1] for g, e in zip(got, expected))
        if not same:
            fail(f"the readings {[(t, n) for _, t, n in got]} are not rotwatch's states {expected}")
        else:
            ok(f"the readings are rotwatch's states as QtSensors names them, each stamped with its t: {' '.join(n for _, _, n in got)}")
        for name in ("FaceDown", "FaceUp", "TopUp", "LeftUp", "TopDown", "RightUp"):
            if name not in [n for _, _, n in got]:
                fail(f"no {name} reading: {got}")
        late = [(n, (now - t) / 1e6) for now, t, n in got[1:] if now - t > LIMIT * 1e6]
        worst = max((now - t) / 1e6 for now, t, _ in got[1:]) if len(got) > 1 else 0
        if late:
            fail(f"readings later than {LIMIT} s after their state: {late}")
        else:
            ok(f"each change came within {LIMIT} s of its state (the latest after {worst:.3f} s)")
        if (got[0][0] / 1e6) - served_at > 3:
            fail(f"the first reading came {(got[0][0] / 1e6) - served_at:.2f} s after the service started")

        before = len(readings(follow_out))
        errors = lines(follow_out).count(f"error {ENOTCONN}")
        service.send_signal(signal.SIGTERM)
        service.wait()
        if wait_for(lambda: lines(follow_out).count(f"error {ENOTCONN}") > errors, 3):
            ok(f"when the service stops the sensor reports sensorError({ENOTCONN})")
        else:
            fail("no sensorError when the service stopped")
        second = os.path.join(scratch, "second.csv")
        write_trace(second, [("up", 0.6), ("left", 0.8)])
        serve(second, "second")
        restarted = time.monotonic()
        if wait_for(lambda: [n for _, _, n in readings(follow_out)[before:]][-1:] == ["LeftUp"], 6):
            resumed = readings(follow_out)[before:]
            ok(f"when the service restarts the readings resume: {' '.join(n for _, _, n in resumed)}, "
               f"{resumed[0][0] / 1e6 - restarted:.2f} s after the restart")
        else:
            fail(f"no readings after the service restarted: {readings(follow_out)[before:]}")

        # The default backend for QOrientationSensor, as Sensors.conf names it (Docs/qt.md). Without it, the
        # program's decoy, registered before any plugin, is the default.
        run = subprocess.run([args.program, "--seconds", "0.3", "--decoy"], env=env, capture_output=True, text=True, timeout=20)
        if run.stdout.splitlines()[:1] != ["backend decoy.orientation"]:
            fail(f"without Sensors.conf the first backend registered should be the default: {run.stdout} {run.stderr}")
        config = os.path.join(scratch, "config")
        os.makedirs(os.path.join(config, "QtProject"), exist_ok=True)
        with open(os.path.join(config, "QtProject", "Sensors.conf"), "w") as f:
            f.write("[Default]\nQOrientationSensor = rotationd.orientation\n")
        default_env = dict(env, XDG_CONFIG_HOME=config)
        run = subprocess.run([args.program, "--seconds", "1", "--decoy"], env=default_env, capture_output=True, text=True, timeout=20)
        if run.stdout.splitlines()[:1] == ["backend rotationd.orientation"] and "reading" in run.stdout:
            ok("a sensor started without an identifier takes rotationd.orientation when ~/.config/QtProject/Sensors.conf names it")
        else:
            fail(f"with Sensors.conf naming rotationd.orientation the default sensor was: {run.stdout} {run.stderr}")
    finally:
        for child in reversed(children):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


if __name__ == "__main__":
    main()
    sys.exit(status)
