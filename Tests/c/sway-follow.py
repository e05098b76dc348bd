#!/usr/bin/python3
"""rotwatch --exec turning a real sway: a headless sway runs as an unprivileged user, rotwatch --exec runs as
that user against a served replay with rotwatch(1)'s sway example as its command (the output renamed
HEADLESS-1), and the output, read through sway's IPC every 20 ms, must follow every change of the rotation
within 0.5 s, with no other transform between, and no run of the example may fail.

  sway-follow.py --bin-dir DIR [--user NAME]

sway refuses to run as root, so the test creates the user (a system user without a home) when it is missing and
gives it a private XDG_RUNTIME_DIR; it needs root for that and says "skip" without it. Prints "ok - ..." or
"FAIL - ..." lines; exits 1 on a failure.
"""
import argparse
import glob
import json
import os
import pwd
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

# What sway's `output ... transform` takes and `swaymsg -t get_outputs` reports, per rotation: sway counts
# clockwise, so left-up (the picture turned a quarter counter-clockwise) is 270 (Sources/rotwatch/ExecCommand.swift).
SWAY = {0: "normal", 90: "270", 180: "180", 270: "90"}
LIMIT = 0.5


def fail(message):
    print(f"FAIL - {message}", flush=True)
    return 1


def sway_ipc(path, kind, payload=b""):
    """One request over sway's IPC (the i3 protocol): magic, length, type, payload; the answer's JSON."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(path)
        s.sendall(b"i3-ipc" + struct.pack("=II", len(payload), kind) + payload)
        head = b""
        while len(head) < 14:
            chunk = s.recv(14 - len(head))
            if not chunk:
                raise OSError("sway closed its IPC socket")
            head += chunk
        length, _ = struct.unpack("=II", head[6:])
        body = b""
        while len(body) < length:
            chunk = s.recv(length - len(body))
            if not chunk:
                raise OSError("sway closed its IPC socket")
            body += chunk
        return json.loads(body)


def output_transform(path):
    for output in sway_ipc(path, 3):  # GET_OUTPUTS
        if output.get("name") == "HEADLESS-1":
            return output.get("transform")
    return None


def write_trace(path):
    # Upright, then left-up, bottom-up, right-up, upright and right-up again, 0.6 s each at 100 Hz.
    poses = [(0, -9.81, 0)] * 80
    for p in [(9.81, 0, 0), (0, 9.81, 0), (-9.81, 0, 0), (0, -9.81, 0), (-9.81, 0, 0)]:
        poses += [p] * 60
    with open(path, "w") as f:
        f.write("t,x,y,z\n")
        for i, p in enumerate(poses):
            f.write("%.4f,%.3f,%.3f,%.3f\n" % ((i / 100,) + p))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--user", default="rotationd-sway")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("skip - the headless sway test runs sway as a user of its own, which needs root to create and become")
        return 0
    for tool in ("sway", "swaymsg", "setpriv", "useradd"):
        if shutil.which(tool) is None:
            return fail(f"{tool} is missing: run scripts/install-deps.sh")
    try:
        user = pwd.getpwnam(args.user)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                               "--shell", "/usr/sbin/nologin", args.user], capture_output=True, text=True)
        if made.returncode != 0:
            return fail(f"useradd {args.user} failed: {made.stderr.strip()}")
        user = pwd.getpwnam(args.user)
    rotwatch = os.path.join(args.bin_dir, "rotwatch")
    as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]

    run = tempfile.mkdtemp(prefix="rsw-", dir="/tmp")
    os.chown(run, user.pw_uid, user.pw_gid)
    os.chmod(run, 0o700)
    children = []
    try:
        if subprocess.run(as_user + [rotwatch, "--version"], capture_output=True).returncode != 0:
            # A checkout under a private directory (such as /root): the user runs a copy from its own directory.
            rotwatch = shutil.copy(rotwatch, os.path.join(run, "rotwatch"))
            os.chmod(rotwatch, 0o755)
            tried = subprocess.run(as_user + [rotwatch, "--version"], capture_output=True, text=True)
            if tried.returncode != 0:
                return fail(f"{args.user} cannot run rotwatch, even copied to {run}: {tried.stderr.strip()}; the "
                            "libraries it links (ldd) must be readable by other users")
        trace = os.path.join(run, "turns.csv")
        write_trace(trace)
        config = os.path.join(run, "config")
        with open(config, "w") as f:
            f.write("xwayland disable\noutput HEADLESS-1 resolution 800x600 transform 180\n")
        os.chown(config, user.pw_uid, user.pw_gid)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": run, "XDG_RUNTIME_DIR": run,
               "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"}
        sway_log = open(os.path.join(run, "sway.log"), "w")
        children.append(subprocess.Popen(as_user + ["sway", "-c", config], env=env, stdout=sway_log, stderr=sway_log))
        ipc = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and ipc is None:
            found = glob.glob(os.path.join(run, "sway-ipc.*.sock"))
            if found:
                try:
                    if output_transform(found[0]) == "180":
                        ipc = found[0]
                except OSError:
                    pass
            time.sleep(0.05)
        if ipc is None:
            sway_log.flush()
            print(open(os.path.join(run, "sway.log")).read()[-2000:])
            return fail("the headless sway did not come up with HEADLESS-1 at transform 180 within 10 s")
        print("ok - a headless sway runs as the unprivileged user, its output at transform 180", flush=True)

        service_socket = os.path.join(run, "rotationd.sock")
        service_log = open(os.path.join(run, "rotationd.log"), "w")
        children.append(subprocess.Popen([os.path.join(args.bin_dir, "rotationd"), "--replay", trace, "--socket", service_socket],
                                         stdout=subprocess.DEVNULL, stderr=service_log))
        subscriber = socket.socket(socket.AF_UNIX)
        deadline = time.monotonic() + 10
        while True:
            try:
                subscriber.connect(service_socket)
                break
            except OSError:
                if time.monotonic() > deadline:
                    return fail("rotationd did not serve the replay within 10 s")
                time.sleep(0.05)
        started = time.monotonic()
        watch_log = open(os.path.join(run, "rotwatch.log"), "w")
        # The command is rotwatch(1)'s sway example, on the headless output.
        page = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man", "rotwatch.1.scd")).read()
        example = next((b for b in page.split("```\n")[1::2] if "swaymsg output" in b), None)
        if example is None:
            return fail("rotwatch(1) has no sway example (a code block with swaymsg output)")
        script = os.path.join(run, "rotate-screen")
        with open(script, "w") as f:
            f.write(example.replace("eDP-1", "HEADLESS-1"))
        os.chmod(script, 0o755)
        children.append(subprocess.Popen(as_user + [rotwatch, "--socket", service_socket, "--exec", script],
                                         env=dict(env, SWAYSOCK=ipc), stdout=watch_log, stderr=watch_log))

        # The states the service publishes, with their t (CLOCK_MONOTONIC, as time.monotonic()), and the output's
        # transform every 20 ms, until 1.5 s after the replay's last change.
        subscriber.setblocking(False)
        pending = b""
        changes = []  # (t, rotation), each a change of the rotation
        seen = []  # (moment, transform)
        last_change = None
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline:
            try:
                data = subscriber.recv(65536)
                pending += data
            except BlockingIOError:
                pass
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                message = json.loads(line)
                if message.get("type") == "state" and message.get("rotation") is not None:
                    if not changes or changes[-1][1] != message["rotation"]:
                        changes.append((message["t"], message["rotation"]))
                        last_change = time.monotonic()
            seen.append((time.monotonic(), output_transform(ipc)))
            if len(changes) >= 6 and time.monotonic() - last_change > 1.5:
                break
            time.sleep(0.02)
        subscriber.close()
        status = 0
        if [r for _, r in changes] != [0, 90, 180, 270, 0, 270]:
            return fail(f"the served replay's changes were {changes}, not 0, 90, 180, 270, 0, 270")
        # Each change: the first moment the output shows its transform, no earlier than the change (or than
        # rotwatch's start, for the state it found on connecting).
        for t, rotation in changes:
            since = max(t, started)
            shown = next((m for m, tr in seen if m >= since and tr == SWAY[rotation]), None)
            if shown is None or shown - since > LIMIT:
                late = "never" if shown is None else f"after {shown - since:.3f} s"
                status = fail(f"rotation {rotation}: the output showed transform {SWAY[rotation]} {late} (limit {LIMIT} s)")
            else:
                print(f"ok - rotation {rotation}: the output showed transform {SWAY[rotation]} {shown - since:.3f} s after the change", flush=True)
        shown = []
        for _, tr in seen:
            if not shown or shown[-1] != tr:
                shown.append(tr)
        wanted = ["180"] + [SWAY[r] for _, r in changes]
        if shown != wanted:
            status = fail(f"the output went through {shown}, not {wanted}")
        else:
            print(f"ok - the output went through {' '.join(shown)} and nothing else", flush=True)
        watch_log.flush()
        errors = open(os.path.join(run, "rotwatch.log")).read()
        if "the command for" in errors:
            status = fail(f"a run of the sway example failed: {errors.strip()}")
        else:
            print("ok - every run of rotwatch(1)'s sway example (transform, touchscreen and pen mapped) exited 0", flush=True)
        return status
    finally:
        for child in reversed(children):
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
