#!/usr/bin/env python3
"""Writes the traces of the suspend tests (Tests/RotationSensorsTests/SleepWakeTests.swift): a tablet held upright
on a stand, still, then turned while the system sleeps and held in its new pose, at 50 Hz, accelerometer and
gyroscope, in the device frame of Tests/fixtures/zoo/four-poses.csv (screen leaned back 30 degrees).

    make-sleep-trace.py DEGREES OUT.csv

Upright (rotation 0) from 0 s to 6.5 s, turned clockwise by DEGREES (90 or 180) from 6.5 s over 0.65 s per
quarter, then held until 15 s. A test falls asleep at 6 s for 3 s, so the turn is made, and over, while asleep.
The sensor has 0.03 m/s^2 of noise per axis and a small bias. Deterministic (fixed seed). Standard library only.
"""
import math, random, sys

G = 9.80665
RATE = 50.0
DURATION = 15.0
PITCH = 30.0
TURN_START = 6.5
QUARTER = 0.65


def main():
    degrees, out = float(sys.argv[1]), sys.argv[2]
    span = QUARTER * abs(degrees) / 90.0
    rng = random.Random(20261204 + int(degrees))
    bias = (0.03, -0.02, 0.02)
    p = math.radians(PITCH)

    def angle(t):
        if t <= TURN_START:
            return 0.0
        if t >= TURN_START + span:
            return degrees
        u = (t - TURN_START) / span
        return degrees * (0.5 - 0.5 * math.cos(math.pi * u))

    with open(out, "w") as f:
        f.write("t,x,y,z,gx,gy,gz\n")
        for i in range(int(DURATION * RATE)):
            t = i / RATE
            th = math.radians(angle(t))
            a = (G * math.sin(th) * math.cos(p), -G * math.cos(th) * math.cos(p), G * math.sin(p))
            v = [a[k] + bias[k] + rng.gauss(0, 0.03) for k in range(3)]
            # Turning clockwise (as the screen is seen) is a negative rate about the device's z axis.
            rate = -math.radians(angle(t + 0.5 / RATE) - angle(t - 0.5 / RATE)) * RATE
            g = [rng.gauss(0, 0.005), rng.gauss(0, 0.005), rate + rng.gauss(0, 0.005)]
            f.write("%.4f,%.4f,%.4f,%.4f,%.5f,%.5f,%.5f\n" % (t, v[0], v[1], v[2], g[0], g[1], g[2]))


if __name__ == "__main__":
    main()
