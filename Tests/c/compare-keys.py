#!/usr/bin/python3
"""Compares what librotationd answers (Tests/c/follow-keys) with what rotwatch prints, camera key by camera key.

usage: compare-keys.py once SOCKET FOLLOW_KEYS ROTWATCH
       compare-keys.py follow FOLLOW_OUTPUT ROTWATCH_OUTPUT [--final-seq N] [--reconnects N]

once:   takes the current state from `rotwatch --once --json`, and asks follow-keys for every camera by each of
        its keys: its name, device, capture nodes, libcamera id and bus path.
follow: reads the two programs' outputs of one run, in which the service may have stopped and restarted, and
        compares each state follow-keys reported (now, and just before it began) with rotwatch's line of the same
        seq and t.

The camera a key names is found by Docs/examples/rotation_history.py's find_camera, the Python client's own
implementation of the lookup rules. Each check prints "ok - NAME" or "FAIL - NAME: why"; exit 1 on a failure.
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Docs", "examples"))
from rotation_history import find_camera  # noqa: E402

failures = []


def check(name, ok, why=""):
    print(("ok - %s" if ok else "FAIL - %s: " + why) % name)
    if not ok:
        failures.append(name)


def keys_of(camera):
    keys = [camera["name"]]
    for k in ["device", "libcamera", "bus_path"]:
        if camera.get(k):
            keys.append(camera[k])
    keys += [n for n in camera.get("nodes") or [] if n not in keys]
    return keys


def same(answer, state, camera):
    """Whether follow-keys' answer is `camera` in rotwatch's `state`: the capture angle, EXIF, mount, the device's
    turn, rotation, seq and the state's start (t, to the 0.1 ms the wire carries)."""
    capture = camera["capture"]
    return ("error" not in answer and answer["capture"] == capture and answer["exif"] == camera["exif"]
            and answer["mount"] == camera["mount"] and answer["turn"] == (capture - camera["mount"]) % 360
            and answer["rotation"] == state["rotation"] and answer["seq"] == state["seq"]
            and round(answer["since"] / 1e5) == round(state["t"] * 1e4))


def once(sock, follow_keys, rotwatch):
    out = subprocess.run([rotwatch, "--once", "--json", "--socket", sock], capture_output=True, text=True, timeout=20).stdout
    states = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    states = [s for s in states if s.get("type") == "state"]
    if not states:
        check("rotwatch --once gives a state", False, out)
        return
    state = states[-1]
    keys = [k for c in state["cameras"] for k in keys_of(c)]
    run = subprocess.run([follow_keys, "--socket", sock, "--once"] + keys, capture_output=True, text=True, timeout=20)
    reports = [json.loads(l)["state"] for l in run.stdout.splitlines() if '"state"' in l]
    check("follow-keys --once gives a state", run.returncode == 0 and reports, run.stdout + run.stderr)
    if not reports:
        return
    answers = {a["key"]: a for a in reports[-1]["now"]}
    kinds = set()
    for camera in state["cameras"]:
        for key in keys_of(camera):
            expected = find_camera(state["cameras"], key)
            check("rotation %d, camera %s by %s: the C library answers capture %s, EXIF %s as rotwatch shows"
                  % (state["rotation"], camera["name"], key, expected["capture"], expected["exif"]),
                  key in answers and same(answers[key], state, expected), "%s vs %s" % (answers.get(key), expected))
            kinds.add("name" if key == camera["name"] else "libcamera" if key == camera.get("libcamera")
                      else "bus_path" if key == camera.get("bus_path") else "node")
    check("every kind of key was asked: %s" % ", ".join(sorted(kinds)), kinds == {"name", "libcamera", "bus_path", "node"}, "%s" % kinds)


def follow(follow_out, rotwatch_out, final_seq, reconnects):
    lines = [json.loads(l) for l in open(follow_out) if l.startswith("{")]
    watched = []
    for line in open(rotwatch_out, errors="replace"):
        try:
            watched.append(json.loads(line))
        except ValueError:
            pass
    watched = [s for s in watched if isinstance(s, dict)]
    watched = [s for s in watched if s.get("type") == "state" and s.get("t") is not None]
    by_time = {(s["seq"], round(s["t"] * 1e4)): s for s in watched}
    ordered = sorted(watched, key=lambda s: s["t"])
    compared = befores = 0
    for entry in lines:
        report = entry.get("state")
        if not report or report["since"] < 0 or report["rotation"] < 0:
            continue
        first = next((a for a in report["now"] if "error" not in a), None)
        if first is None:
            check("a state follow-keys reported answers its keys", False, json.dumps(report))
            continue
        if first["seq"] == final_seq:
            continue
        state = by_time.get((first["seq"], round(first["since"] / 1e5)))
        if state is None:
            check("follow-keys' state seq %d at %.4f is one rotwatch printed" % (first["seq"], first["since"] / 1e9), False, "")
            continue
        for answer in report["now"]:
            compared += 1
            camera = find_camera(state["cameras"], answer["key"])
            if not same(answer, state, camera):
                check("seq %d, key %s: as rotwatch" % (state["seq"], answer["key"]), False, "%s vs %s" % (answer, camera))
        earlier = [s for s in ordered if s["t"] < state["t"]]
        for answer in report["before"]:
            if "error" in answer:
                continue
            befores += 1
            camera = find_camera(earlier[-1]["cameras"], answer["key"]) if earlier else None
            if camera is None or not same(answer, earlier[-1], camera):
                check("just before seq %d, key %s: the state before it, as rotwatch" % (state["seq"], answer["key"]), False,
                      "%s vs %s" % (answer, earlier[-1] if earlier else None))
    check("follow-keys' answers for every key, now and just before each state began, are rotwatch's (%d now, %d before)"
          % (compared, befores), compared >= 20 and befores >= 10 and not failures, "%d, %d" % (compared, befores))
    connections = [e for e in lines if "connected" in e]
    downs = [e for e in connections if not e["connected"]]
    ups = [e for e in connections if e["connected"]]
    check("follow-keys saw the service stop and come back %d times, saying why it was not connected" % reconnects,
          len(ups) >= reconnects + 1 and len(downs) >= reconnects and all(e["message"] for e in downs),
          "%s" % connections)
    if final_seq is not None:
        finals = [e["state"] for e in lines if "state" in e and any(a.get("seq") == final_seq for a in e["state"]["now"])]
        ok = bool(finals) and all(a.get("capture") == 180 and a.get("exif") == 3 for a in finals[-1]["now"])
        check("after a fake service's garbage the program still runs and takes its one good state (seq %d, left-up: back and front 180)"
              % final_seq, ok, "%s" % (finals[-1] if finals else lines[-5:]))


def main():
    args = sys.argv[1:]
    if args[:1] == ["once"] and len(args) == 4:
        once(*args[1:])
    elif args[:1] == ["follow"] and len(args) >= 3:
        final = int(args[args.index("--final-seq") + 1]) if "--final-seq" in args else None
        reconnects = int(args[args.index("--reconnects") + 1]) if "--reconnects" in args else 0
        follow(args[1], args[2], final, reconnects)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
