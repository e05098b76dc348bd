#!/usr/bin/env python3
"""Writes the trace of the live bench's "still" scenario: a tablet propped on a stand for a minute, turned a
quarter clockwise at 20 s and back at 40 s, at 50 Hz, accelerometer only, with its labels.

    make-still-trace.py OUT.csv        (also writes OUT.labels.json)

The stand leans the screen back 20 degrees; the sensor has 0.03 m/s^2 of noise per axis and a small bias.
Deterministic (fixed seed). Standard library only. The frame is ../shared/traces/README.md's.
"""
import json, math, random, sys

G = 9.80665
RATE = 50.0
DURATION = 60.0
PITCH = 20.0
# (start s, end s, from degrees, to degrees): the two turns
TURNS = [(20.0, 20.5, 0, 90), (40.0, 40.5, 90, 0)]

def angle(t):
    for t0, t1, a0, a1 in TURNS:
        if t < t0:
            return a0
        if t <= t1:
            u = (t - t0) / (t1 - t0)
            return a0 + (a1 - a0) * (0.5 - 0.5 * math.cos(math.pi * u))
    return TURNS[-1][3]

def main():
    out = sys.argv[1]
    rng = random.Random(20261203)
    bias = (0.05, -0.04, 0.03)
    p = math.radians(PITCH)
    with open(out, "w") as f:
        f.write("t,x,y,z\n")
        n = int(DURATION * RATE)
        for i in range(n):
            t = i / RATE
            th = math.radians(angle(t))
            a = (G * math.sin(th) * math.cos(p), -G * math.cos(th) * math.cos(p), G * math.sin(p))
            v = [a[k] + bias[k] + rng.gauss(0, 0.03) for k in range(3)]
            f.write("%.4f,%.4f,%.4f,%.4f\n" % (t, v[0], v[1], v[2]))
    segments = []
    last = 0.0
    for t0, t1, a0, a1 in TURNS:
        segments.append({"start": last, "end": t0, "kind": "hold", "expect": a0, "may_change": False})
        segments.append({"start": t0, "end": t1, "kind": "move", "from": a0, "to": a1, "may_change": True})
        last = t1
    segments.append({"start": last, "end": DURATION, "kind": "hold", "expect": TURNS[-1][3], "may_change": False})
    labels = {"name": "still", "rate_hz": RATE, "duration": DURATION, "segments": segments}
    with open(out[:-4] + ".labels.json", "w") as f:
        json.dump(labels, f, indent=1)

if __name__ == "__main__":
    main()
