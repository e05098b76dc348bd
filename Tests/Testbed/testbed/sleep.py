"""Sleep and wake: the "suspend" step (PROGRAM frozen, the clocks held back, the sensors asleep) and "asleep" (a
thread of PROGRAM that must not wake up)."""
import os
import signal
import time

from . import results
from .common import Clock, Failure, program_monotonic, write_atomically
from .kernel import SLEPT_FORMAT

SUSPEND_OPTIONS = {"at", "events", "hid", "powered"}


def suspend(run, seconds, options=None):
    """["suspend", SECONDS, {"at": T, "events": "kept"|"lost", "hid": "wedged"|{"silent": MS}, "powered": true}]
    Emulate a system suspend of SECONDS and the resume after it; OPTIONS ({} or left out for the defaults):
    freezes PROGRAM (SIGSTOP to it and its descendants, every thread), lets SECONDS pass while a played trace goes
    on (a device turned while asleep), then resumes it: adds the time it was stopped to the time slept, wakes the
    resume FIFOs and sends SIGCONT. With "at", it first waits until T s into the trace of the last "play" step,
    and the trace goes no further than T until PROGRAM is stopped (a stop that comes late holds the trace, so
    everything after T still happens asleep; "suspend: trace held S s" says by how much). While asleep, played
    sensors deliver no scan and raise no event; their raw attributes follow the trace, so a polled sensor reads its
    new pose as soon as it is read after the wake ("powered": true says so and changes nothing). After the wake:
      "events": "kept"      (the default) a sensor's motion event is armed as before; its detector starts afresh,
                            so a turn made while asleep raises no event (a slope detector compares samples)
      "events": "lost"      a sensor lost its event configuration over the sleep, while the enable files still
                            read 1: no event is raised until one of its enable files is written 0 and then 1
      "hid": {"silent": MS} every played sensor's buffer delivers nothing for MS ms after the wake; scans due
                            meanwhile are dropped
      "hid": "wedged"       every played sensor's buffer stays enabled and silent until buffer/enable is written
                            0 (then 1 again)
    Prints "suspend: asleep at T0" once PROGRAM is stopped and "suspend: woke at T1 after S s asleep" (T1 read
    just before SIGCONT), and writes T1 to the file named by PROGRAM's SUSPEND_WOKE_FILE. With a "suspend" among
    the steps PROGRAM's clocks follow the sleeps (see Docs/testing.md, "The program's clocks")."""
    options = _check_options(run, options)
    clock = run.clock
    if "at" in options:
        if clock is None:
            raise Failure("\"at\" needs a play step before")
        time.sleep(max(0.0, clock.start + options["at"] - time.monotonic()))
    pids = family(run.proc.pid)
    stopped = _freeze(pids)
    for sensor in run.emulated:
        sensor.fall_asleep()
    results.say("suspend: asleep at %.6f" % (stopped - Clock.slept), "suspend-asleep", at=stopped - Clock.slept)
    if "at" in options:
        held = clock.release()
        results.say("suspend: trace held %.6f s" % held, "suspend-held", seconds=held)
    time.sleep(max(0.0, stopped + seconds - time.monotonic()))
    log = run.kernel_log
    log_offset = os.path.getsize(log) if os.path.exists(log) else 0
    for sensor in run.emulated:
        sensor.wake(options.get("events", "kept"), options.get("hid"), log, log_offset)
    asleep_for = time.monotonic() - stopped
    Clock.slept += asleep_for
    _wake_kernel(run.root)
    # The wake on PROGRAM's clock, read before it runs again: its own first reading comes after.
    woke = program_monotonic()
    for pid in pids:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    results.say("suspend: woke at %.6f after %.3f s asleep" % (woke, asleep_for), "suspend-woke", at=woke,
                asleep=asleep_for)
    write_atomically(run.suspend_woke, "%.6f\n" % woke)


def _check_options(run, options):
    options = {} if options is None else options
    if not isinstance(options, dict) or set(options) - SUSPEND_OPTIONS:
        raise Failure("options must be an object with keys among %s" % sorted(SUSPEND_OPTIONS))
    if run.proc is None or run.proc.poll() is not None:
        raise Failure("the program is not running")
    if options.get("events", "kept") not in ("kept", "lost"):
        raise Failure("events must be \"kept\" or \"lost\"")
    hid = options.get("hid")
    if not (hid is None or hid == "wedged" or (isinstance(hid, dict) and set(hid) == {"silent"})):
        raise Failure("hid must be \"wedged\" or {\"silent\": MS}")
    return options


def _freeze(pids):
    """SIGSTOPs PIDS and waits until every thread of them is stopped; returns when (driver's monotonic s)."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 2
    while not all_stopped(pids):
        if time.monotonic() > deadline:
            raise Failure("the program did not stop within 2 s")
        time.sleep(0.001)
    return time.monotonic()


def _wake_kernel(root):
    """Tells the emulated kernel the time slept (iio-kernel/slept) and wakes its resume FIFOs."""
    directory = os.path.join(root, "iio-kernel")
    slept = os.path.join(directory, "slept")
    if os.path.exists(slept):
        fd = os.open(slept, os.O_WRONLY)
        os.pwrite(fd, (SLEPT_FORMAT % Clock.slept).encode(), 0)
        os.close(fd)
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if name.startswith("resume-"):
            try:
                fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue  # no reader: the process is gone
            try:
                os.write(fd, b"r")
            except OSError:
                pass
            os.close(fd)


def family(pid):
    """PID and its descendants."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def all_stopped(pids):
    """Whether every thread of PIDS is stopped (state T)."""
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("T", "t", "Z", "X"):
                return False
    return True


def _threads(pid, name):
    """{tid: (state letter, voluntary switches)} of PID's threads named NAME."""
    found = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except FileNotFoundError:
            continue
        if fields["Name"].strip() == name:
            found[tid] = (fields["State"].strip()[:1], int(fields["voluntary_ctxt_switches"]))
    return found


def asleep(run, name, seconds, most=0):
    """["asleep", THREAD, SECONDS, MOST]
    Fail unless PROGRAM's thread named THREAD exists and, once it is seen asleep, wakes up (is switched to) at
    most MOST times (0 when not given) in SECONDS; a "wake-ups" result gives the count. The count starts when the
    thread is first seen sleeping (it may not have started yet, or still be busy starting up, on a loaded
    machine), and counts voluntary switches only: a sleeping thread is never preempted, so each one is a wake-up
    followed by sleeping again."""
    pid = run.proc.pid
    # Settled: seen sleeping twice, 0.1 s apart, without a switch in between. A thread the program has not
    # started yet (a sanitized build on a loaded machine starts it late) is waited for within the same time.
    deadline = time.monotonic() + 10
    before = _threads(pid, name)
    while True:
        if not before and time.monotonic() > deadline:
            raise Failure("the program has no thread named %s after 10 s" % name)
        time.sleep(0.1)
        now = _threads(pid, name)
        if now and now == before and all(state == "S" for state, _ in now.values()):
            break
        if now and time.monotonic() > deadline:
            raise Failure("thread %s never settled asleep within 10 s" % name)
        before = now
    time.sleep(seconds)
    after = _threads(pid, name)
    woke = sum(after.get(tid, (None, n))[1] - n for tid, (_, n) in before.items())
    results.say("asleep: thread %s woke up %d times in %ss" % (name, woke, seconds), "wake-ups", thread=name,
                seconds=seconds, count=woke)
    if woke > most:
        raise Failure("thread %s woke up %d times in %ss, more than %d" % (name, woke, seconds, most))
