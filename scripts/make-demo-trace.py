#!/usr/bin/env python3
"""Writes data/demo-50hz.csv, the trace `make demo` replays: a tablet turned through every rotation,
laid flat, spun on the table and lifted again, at 50 Hz with accelerometer and gyroscope columns.

With --four-poses it writes Tests/fixtures/zoo/four-poses.csv instead, the trace the driver tests play into
emulated parts: upright, then a quarter turn clockwise at a time through left-up, bottom-up and right-up back
to upright, each pose held 3 s, leaning 30 degrees back.

Deterministic (fixed seed). Standard library only.

The device orientation is R = Rx(pitch) . Rz(-theta): theta is the clockwise turn seen by the person
facing the screen, pitch leans the screen back towards the sky. The accelerometer reads R^T (0, -g, 0),
which gives (g sin(theta) cos(pitch), -g cos(theta) cos(pitch), g sin(pitch)); the gyroscope reads the body
rate, the vee of R^T dR/dt.
"""
import math, os, random, sys

G = 9.80665
RATE = 50.0
# (time s, theta degrees clockwise, pitch degrees back from vertical); eased between key frames
KEYS = [
    (0.0, 0, 30), (4.0, 0, 30), (4.6, 90, 30), (9.0, 90, 30), (10.0, -90, 30), (14.0, -90, 30),
    (14.6, 0, 30), (18.0, 0, 30), (19.0, 0, 85), (19.5, 0, 85), (20.5, 90, 85), (24.0, 90, 85),
    (25.0, 90, 30), (29.0, 90, 30), (29.6, 180, 30), (33.0, 180, 30), (33.6, 360, 30), (36.0, 360, 30),
]

FOUR_POSES = [
    (0.0, 0, 30), (3.0, 0, 30), (3.6, 90, 30), (6.6, 90, 30), (7.2, 180, 30), (10.2, 180, 30),
    (10.8, 270, 30), (13.8, 270, 30), (14.4, 360, 30), (17.4, 360, 30),
]


def pose(t):
    for (t0, a0, p0), (t1, a1, p1) in zip(KEYS, KEYS[1:]):
        if t0 <= t <= t1:
            u = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
            e = 0.5 - 0.5 * math.cos(math.pi * u)
            return math.radians(a0 + (a1 - a0) * e), math.radians(p0 + (p1 - p0) * e)
    _, a, p = KEYS[-1]
    return math.radians(a), math.radians(p)

def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]

def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]

def rot(t):
    th, ph = pose(t)
    c, s = math.cos(-th), math.sin(-th)
    rz = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    c, s = math.cos(ph), math.sin(ph)
    rx = [[1, 0, 0], [0, c, -s], [0, s, c]]
    return matmul(rx, rz)

def main():
    global KEYS
    rng = random.Random(20261202)
    bias = (0.004, -0.003, 0.002)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo-50hz.csv")
    if sys.argv[1:] == ["--four-poses"]:
        KEYS = FOUR_POSES
        out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "fixtures", "zoo", "four-poses.csv")
    end = KEYS[-1][0]
    t, dt = 0.0, 1.0 / RATE
    with open(out, "w") as f:
        f.write("t,x,y,z,gx,gy,gz\n")
        while t <= end:
            r = rot(t)
            rt = transpose(r)
            a = [sum(rt[i][k] * (0, -G, 0)[k] for k in range(3)) for i in range(3)]
            h = 1e-3
            r2 = rot(t + h)
            d = matmul(rt, [[(r2[i][j] - r[i][j]) / h for j in range(3)] for i in range(3)])
            w = (0.5 * (d[2][1] - d[1][2]), 0.5 * (d[0][2] - d[2][0]), 0.5 * (d[1][0] - d[0][1]))
            acc = [v + rng.gauss(0, 0.06) for v in a]
            gyr = [w[i] + bias[i] + rng.gauss(0, 0.004) for i in range(3)]
            f.write("%.4f,%.4f,%.4f,%.4f,%.5f,%.5f,%.5f\n" % (t, *acc, *gyr))
            t += dt * (1 + rng.uniform(-0.03, 0.03))

if __name__ == "__main__":
    main()
