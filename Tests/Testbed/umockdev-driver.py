#!/usr/bin/python3
"""Runs a program inside an umockdev testbed and drives the emulated IIO devices while it runs.

    umockdev-wrapper /usr/bin/python3 Tests/Testbed/umockdev-driver.py --device X.umockdev [--device ...]
        [--rule RULE ...] [--user USER:GROUP] [--results PATH] --actions JSON -- PROGRAM ARGS

--device adds the devices of an umockdev file (relative to Tests/fixtures), and the parts and kernel rules its
sidecar X.json describes. --rule adds one rule of the emulated kernel (Tests/Testbed/kernel). --user runs PROGRAM
as that unprivileged user (setpriv: no supplementary groups, no capabilities, no_new_privs, as rotationd.service
runs it); the testbed's root and ioctl sockets are handed to it. --results writes the results as JSON lines
(Tests/Testbed/results.md). --actions is a JSON list of steps, run in order, each a list whose first item is its
verb: `--help` lists them (the table is testbed/steps.py). Without a "start" step PROGRAM never runs.

PROGRAM's stdout goes to stdout and its stderr to stderr once it has ended, then each line received on the Nth
socket connection as "socket N: LINE" on stdout; the driver's own reports go to stderr as they happen, the
emulated kernel's log last ("kernel: LINE", "neighbours-kernel: LINE"). The exit status is 0 when every step
passed, else 1 with the failed step on stderr. Docs/testing.md describes the test bed.
"""
import json
import sys

sys.dont_write_bytecode = True  # the driver runs from the source tree, often as root

from testbed import results  # noqa: E402
from testbed.neighbours import end_neighbours  # noqa: E402
from testbed.run import Run, end, finish  # noqa: E402
from testbed.steps import run_steps, usage  # noqa: E402


def parse(argv):
    """(devices, actions, user, rules, results path, program) from the command line."""
    if "--help" in argv[:argv.index("--") if "--" in argv else len(argv)]:
        print(__doc__ + "\nSteps:\n\n" + usage())
        sys.exit(0)
    split = argv.index("--")
    opts, program = argv[:split], argv[split + 1:]
    devices, actions, user, rules, path = [], [], None, [], None
    for i in range(0, len(opts) - 1, 2):
        name, value = opts[i], opts[i + 1]
        if name == "--device":
            devices.append(value)
        elif name == "--actions":
            actions = json.loads(value)
        elif name == "--user":
            user = value
        elif name == "--rule":
            rules.append(value)
        elif name == "--results":
            path = value
    return devices, actions, user, rules, path, program


def main():
    devices, actions, user, rules, path, program = parse(sys.argv[1:])
    results.open_results(path)
    run = Run(devices, actions, program, user, rules)
    failure = run_steps(run)
    finish(run.root, end(run, failure))


if __name__ == "__main__":
    try:
        main()
    finally:
        # Reached only when the driver fails on its own (main ends through finish()): leave nothing running.
        end_neighbours()
