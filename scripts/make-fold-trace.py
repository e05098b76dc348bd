#!/usr/bin/env python3
"""Writes data/demo-fold-50hz.csv, the convertible trace `make demo` replays after the turns: a 360-degree
convertible opened from closed into a laptop, folded past flat into a stand, on into a tablet held upright,
and opened back into a laptop, at 50 Hz with the display (x, y, z) and base (bx, by, bz) accelerometers.

The geometry is ../shared/traces-posture/README.md's (Docs/posture.md): with the base turned about the hinge
by beta and the panels `hinge` degrees apart, the base reads Rx(beta) (0, 0, g) and the display
Rx(beta + 180 - hinge) (0, 0, g), where Rx(a) (0, 0, c) = (0, -c sin a, c cos a). The hinge is tilted 15
degrees out of level, so that a little of gravity lies along it, as on a real table.

Deterministic (fixed seed). Standard library only.
"""
import math, os, random

G = 9.80665
RATE = 50.0
TILT = 15.0
# (time s, hinge degrees, beta degrees): held where two key frames repeat, eased between them.
KEYS = [
    (0, 2, 0), (2, 2, 0),          # closed on the table
    (3.5, 110, 0), (6, 110, 0),    # opened into a laptop
    (9, 280, 180), (12, 280, 180), # folded past flat into a stand: base face down, display upright
    (14, 355, 265), (17, 355, 265),  # on into a tablet, held upright
    (20, 110, 0), (23, 110, 0),    # opened back into a laptop
]


def ease(u):
    return u * u * (3 - 2 * u)


def pose(t):
    for (t0, h0, b0), (t1, h1, b1) in zip(KEYS, KEYS[1:]):
        if t <= t1:
            u = ease((t - t0) / (t1 - t0)) if t1 > t0 else 1.0
            return h0 + (h1 - h0) * u, b0 + (b1 - b0) * u
    return KEYS[-1][1], KEYS[-1][2]


def rx(a, c, along):
    r = math.radians(a)
    return (along, -c * math.sin(r), c * math.cos(r))


def main():
    rand = random.Random(37)
    c, along = G * math.cos(math.radians(TILT)), G * math.sin(math.radians(TILT))
    rows = ["t,x,y,z,bx,by,bz"]
    n = int(KEYS[-1][0] * RATE)
    for i in range(n + 1):
        t = i / RATE
        hinge, beta = pose(t)
        lid = rx(beta + 180 - hinge, c, along)
        base = rx(beta, c, along)
        values = [v + rand.gauss(0, 0.04) for v in lid + base]
        rows.append("%.3f," % t + ",".join("%.4f" % v for v in values))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo-fold-50hz.csv")
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
