#!/usr/bin/env python3
"""Writes flawed copies of labelled traces (t,x,y,z[,gx,gy,gz] with NAME.labels.json beside each), for replays.

    scripts/flawed-copies.py SOURCE_DIR OUT_DIR KIND [SEED]

KIND is one of:
    offset      an uncalibrated accelerometer: per trace, a fixed offset of up to a quarter g and a gain
                error of up to 8 % on each axis (uniformly drawn from NAME, KIND and SEED)
    gyroF       the gyroscope columns multiplied by F (gyro1000, gyro0.001); traces without them are skipped
    posture     a convertible's two accelerometers (t,x,y,z,bx,by,bz...), each with its own small flaws: per
                trace and sensor, offsets of up to 0.4 m/s² and gain errors of up to 5 % on each axis, and noise
                of 0.15 m/s² on every reading; traces without base columns are skipped
    gyrogap     the gyroscope columns left empty for 0.27 s every 3 s (a reading missing just longer than the
                engine's gyroTimeout, as a separate gyroscope's batch that comes late); traces without them are
                skipped
    relativeF   a sensor whose flaws are in proportion to whatever it reads for 1 g: the accelerometer columns
                multiplied by F (relative0.1 for a scale ten times too small, relative1 to keep it), then per
                trace a gain error of up to 5 % and an offset of up to a tenth of the copy's own 1 g on each
                axis, and noise of 0.2, 0.5 or 1 % of it on every reading

The labels are copied unchanged: the motion is the same, only the sensor reads it differently.
"""
import glob
import os
import random
import shutil
import sys

GRAVITY = 9.80665


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    source, out, kind = sys.argv[1:4]
    seed = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    if kind not in ("offset", "posture") and not kind.startswith("gyro") and not kind.startswith("relative"):
        sys.exit("flawed-copies: unknown KIND %r; use offset, posture, gyrogap, gyroF (such as gyro1000) or relativeF"
                 " (such as relative0.1)" % kind)
    posture = kind == "posture"
    gap = kind == "gyrogap"
    factor = float(kind[4:]) if kind.startswith("gyro") and not gap else None
    relative = float(kind[8:]) if kind.startswith("relative") else None
    os.makedirs(out, exist_ok=True)
    written = 0
    for path in sorted(glob.glob(os.path.join(source, "*.csv"))):
        name = os.path.basename(path)[:-4]
        lines = open(path).read().splitlines()
        header = lines[0]
        columns = header.split(",")
        if (factor is not None or gap) and len(columns) < 7:
            continue
        if posture and "bx" not in columns:
            continue
        draw = random.Random("%s-%s-%d" % (name, kind, seed))
        offset = [draw.uniform(-0.25, 0.25) * GRAVITY for _ in range(3)]
        gain = [1 + draw.uniform(-0.08, 0.08) for _ in range(3)]
        if posture:
            flawed = [1, 2, 3] + [columns.index(c) for c in ("bx", "by", "bz")]
            offset = [draw.uniform(-0.4, 0.4) for _ in flawed]
            gain = [1 + draw.uniform(-0.05, 0.05) for _ in flawed]
        if relative is not None:
            first = [float(x) for x in lines[1].split(",")[1:4]]
            g = relative * sum(x * x for x in first) ** 0.5
            offset = [draw.uniform(-0.1, 0.1) * g for _ in range(3)]
            gain = [relative * (1 + draw.uniform(-0.05, 0.05)) for _ in range(3)]
            noise = draw.choice([0.002, 0.005, 0.01]) * g
        rows = [header]
        for line in lines[1:]:
            # An empty gyroscope field (a sample without a reading) stays empty.
            v = [float(x) if x else None for x in line.split(",")]
            if gap:
                if 1.0 < v[0] % 3.0 < 1.27:
                    v[4:] = [None] * len(v[4:])
            elif posture:
                for k, i in enumerate(flawed):
                    if v[i] is not None:
                        v[i] = v[i] * gain[k] + offset[k] + draw.gauss(0, 0.15)
            elif relative is not None:
                for i in range(3):
                    v[1 + i] = v[1 + i] * gain[i] + offset[i] + draw.gauss(0, noise)
            elif factor is None:
                for i in range(3):
                    v[1 + i] = v[1 + i] * gain[i] + offset[i]
            else:
                for i in range(4, 7):
                    if v[i] is not None:
                        v[i] *= factor
            rows.append(",".join("" if x is None else ("%.5f" if i else "%.4f") % x for i, x in enumerate(v)))
        with open(os.path.join(out, name + ".csv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        shutil.copy(os.path.join(source, name + ".labels.json"), os.path.join(out, name + ".labels.json"))
        written += 1
    print("flawed-copies: %d traces written to %s" % (written, out), file=sys.stderr)


if __name__ == "__main__":
    main()
