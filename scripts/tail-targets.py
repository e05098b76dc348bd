#!/usr/bin/env python3
"""Replays every set the engine's latency targets are judged on and prints, per set, the changes scored, the
missed and spurious ones and the latency percentiles, pooled over the set's traces (the shared scorer's
per-trace scores, pooled). Sets, each at the sampling policy's pace unless named --full-rate:

    traces, traces-sensors             ../shared/traces and ../shared/traces-sensors, accelerometer only and fused,
                                       also with --full-rate
    gyro1000, gyro0.001                both shared sets with the gyroscope reading 1000 times too much, too little
    offset, offset6                    offset copies of ../shared/traces (scripts/flawed-copies.py, seeds 1 to 20),
                                       every kind, and only the six kinds of ../shared/traces-sensors

    scripts/tail-targets.py ROTATIOND [SETS]    e.g. .build/release/rotationd "offset accel,offset fused"

The copies and the replays go to a temporary directory, removed at the end; with KEEP=DIR they go to DIR and
stay there (copies already in DIR are reused), for a look at single traces with ../shared/eval/score.py. The
latest output is kept in Docs/bench-tail-targets.txt.
"""
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared"))
SIX = {"flick", "reading", "rotations", "shake", "table", "walking"}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    only = set(sys.argv[2].split(",")) if len(sys.argv) == 3 else None
    spec = importlib.util.spec_from_file_location("score", os.path.join(SHARED, "eval", "score.py"))
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    keep = os.environ.get("KEEP")
    work = keep or tempfile.mkdtemp(prefix="tail-targets-")
    try:
        traces, sensors = os.path.join(SHARED, "traces"), os.path.join(SHARED, "traces-sensors")
        copies = os.path.join(work, "copies")

        def copy(source, kind, seed=1):
            out = os.path.join(copies, "%s-%s-%d" % (os.path.basename(source), kind, seed))
            if not os.path.isdir(out):
                subprocess.run([sys.executable, os.path.join(HERE, "flawed-copies.py"), source, out, kind, str(seed)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return out

        sets = [("traces accel", [traces], ["--no-gyro"], None), ("traces fused", [traces], [], None),
                ("traces accel full", [traces], ["--no-gyro", "--full-rate"], None),
                ("traces fused full", [traces], ["--full-rate"], None),
                ("traces-sensors accel", [sensors], ["--no-gyro"], None), ("traces-sensors fused", [sensors], [], None),
                ("traces-sensors accel full", [sensors], ["--no-gyro", "--full-rate"], None),
                ("traces-sensors fused full", [sensors], ["--full-rate"], None)]
        for factor in ("gyro1000", "gyro0.001"):
            sets.append((factor, [lambda f=factor: copy(traces, f), lambda f=factor: copy(sensors, f)], [], None))
        offsets = [lambda s=s: copy(traces, "offset", s) for s in range(1, 21)]
        sets += [("offset accel", offsets, ["--no-gyro"], None), ("offset fused", offsets, [], None),
                 ("offset6 accel", offsets, ["--no-gyro"], SIX), ("offset6 fused", offsets, [], SIX)]
        described = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"], capture_output=True, text=True)
        print("rotationd %s at the sampling policy's pace (--full-rate: every sample); latency in ms from the start of"
              " the hold after a move" % (described.stdout.strip() or "?"))
        print("%-28s %6s %7s %9s %5s %5s %5s" % ("set", "scored", "missed", "spurious", "p50", "p95", "max"))
        for name, dirs, args, kinds in sets:
            if only and name not in only:
                continue
            dirs = [d() if callable(d) else d for d in dirs]
            jobs = []
            for d in dirs:
                for csv in sorted(glob.glob(os.path.join(d, "*.csv"))):
                    trace = os.path.basename(csv)[:-4]
                    if kinds and trace.split("-")[0] not in kinds:
                        continue
                    out = os.path.join(work, "replays", name.replace(" ", "-"), os.path.basename(d) + "__" + trace + ".jsonl")
                    jobs.append((csv, out))
            os.makedirs(os.path.join(work, "replays", name.replace(" ", "-")), exist_ok=True)

            def replay(job):
                with open(job[1], "w") as f:
                    subprocess.run([binary, "--replay", job[0]] + args, stdout=f, stderr=subprocess.DEVNULL, check=True)

            with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
                list(pool.map(replay, jobs))
            latencies, missed, spurious = [], 0, 0
            for csv, out in jobs:
                r = scorer.score(json.load(open(csv[:-4] + ".labels.json")), scorer.read_events(out))
                latencies += r["latencies"]
                missed += r["missed"]
                spurious += r["spurious"]
            ms = lambda q: round(1000 * scorer.pct(latencies, q))
            print("%-28s %6d %7d %9d %5d %5d %5d" % (name, len(latencies), missed, spurious, ms(0.5), ms(0.95),
                                                    round(1000 * max(latencies))), flush=True)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
