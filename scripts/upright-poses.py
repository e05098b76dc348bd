#!/usr/bin/env python3
"""Writes the upright pose of Tests/fixtures/zoo/four-poses.csv (its rows before the first turn, 2.9 s) to OUT,
for the benches that hold the sensor still: scripts/upright-poses.py FOUR_POSES OUT"""
import sys

lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as f:
    f.write(lines[0] + "\n")
    for line in lines[1:]:
        if float(line.split(",")[0]) < 2.9:
            f.write(line + "\n")
