"""The program under test: starting it under the emulated kernel, waiting on its output, stopping it, and what is
measured of it (credentials, memory, CPU, wake-ups)."""
import os
import signal
import subprocess
import sys
import time

from . import results
from .common import Failure, Stream
from .kernel import kernel_environment
from .neighbours import outside_environment


def start(run):
    """["start"]
    Start PROGRAM, under the emulated kernel (iio-kernel.so in front of umockdev's preload) with the devices'
    kernel rules and PLAY_STARTED_FILE and SUSPEND_WOKE_FILE in its environment. Without a "start" step PROGRAM
    never runs and nothing is built for it. Once PROGRAM has ended ("stop", "ended", "exit"), "start" runs it again
    in the same testbed (a restart): the wait steps then read the new run's output, and the report gives every
    run's, in order."""
    if run.proc is not None:
        if run.proc.poll() is None:
            raise Failure("PROGRAM still runs: a \"stop\", \"ended\" or \"exit\" step ends it before it starts again")
        run.ended.append((run.out, run.err))
    sleeps = any(s[0] == "suspend" for s in run.actions)
    run.env = run.env or kernel_environment(run.root, run.rules, run.kernel_log, sleeps)
    # A program that acts on a played trace's turns (iio-events.py) times itself from its start, which the "play"
    # step writes to this file (whether it comes before or after "start").
    env = dict(run.env, PLAY_STARTED_FILE=run.play_started, SUSPEND_WOKE_FILE=run.suspend_woke)
    run.proc = subprocess.Popen(run.program, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    run.out, run.err = Stream(run.proc.stdout), Stream(run.proc.stderr)
    if run.guard:
        run.guard.follow(run.proc.pid)


def wait(run, pattern, seconds):
    """["wait", REGEX, SECONDS]
    Wait for a stdout line of PROGRAM matching REGEX after the last match."""
    _running(run).out.wait(pattern, seconds)


def wait_err(run, pattern, seconds):
    """["wait-err", REGEX, SECONDS]
    The same on PROGRAM's stderr."""
    _running(run).err.wait(pattern, seconds)


def alive(run):
    """["alive"]
    Fail if PROGRAM has exited."""
    if _running(run).proc.poll() is not None:
        raise Failure("the program exited with status %s" % run.proc.returncode)


def stop_step(run):
    """["stop"]
    SIGTERM PROGRAM and wait (SIGKILL after 5 s)."""
    stop(_running(run).proc)


def exit_step(run, seconds):
    """["exit", SECONDS]
    Wait for PROGRAM to exit by itself; prints "exit: the program exited with status N" (N negative for a signal)."""
    try:
        status = _running(run).proc.wait(seconds)
    except subprocess.TimeoutExpired:
        raise Failure("the program did not exit within %ss" % seconds)
    results.say("exit: the program exited with status %d" % status, "exited", status=status)


def signal_step(run, name):
    """["signal", NAME]
    Send PROGRAM the signal NAME (TERM, INT, SEGV, ABRT, KILL...), as systemd or a crash would, and go on at once
    ("ended" waits for its end)."""
    number = getattr(signal, "SIG" + name, None)
    if not isinstance(number, int):
        raise Failure("no signal SIG%s" % name)
    _running(run).proc.send_signal(number)
    results.say("program: sent SIG%s" % name)


def ended_step(run, how, seconds):
    """["ended", HOW, SECONDS]
    Wait up to SECONDS for PROGRAM to end, and fail unless it ended as HOW says: "status N" (it exited with N), or
    "signal NAME" (a signal's default action ended it, as systemd sees a crash: "signal SEGV"). A later "start"
    starts it again."""
    proc = _running(run).proc
    try:
        code = proc.wait(seconds)
    except subprocess.TimeoutExpired:
        raise Failure("the program did not end within %ss" % seconds)
    ended = "status %d" % code if code >= 0 else "signal %s" % signal.Signals(-code).name[3:]
    results.say("program: ended, %s" % ended)
    if ended != how:
        raise Failure("the program ended with %s, expected %s" % (ended, how))


def run_step(run, argv):
    """["run", ARGV]
    Run a command outside the testbed (without umockdev's LD_PRELOAD and UMOCKDEV_DIR) with PROGRAM_PID set to
    PROGRAM's process id and the driver's stdout and stderr; fail if it exits with another status than 0."""
    outside = outside_environment()
    outside["PROGRAM_PID"] = str(_running(run).proc.pid)
    sys.stdout.flush()
    status = subprocess.call(argv, env=outside)
    if status != 0:
        raise Failure("exited with status %d" % status)


def credentials(run):
    """["credentials"]
    Print PROGRAM's user, groups and capability sets, from its /proc/PID/status, as "credentials: FIELD: VALUE"."""
    with open("/proc/%d/status" % _running(run).proc.pid) as f:
        for line in f:
            field, _, value = line.rstrip("\n").partition(":")
            if field in ("Uid", "Gid", "Groups", "NoNewPrivs") or field.startswith("Cap"):
                results.say("credentials: " + line.rstrip("\n"), "credentials", field=field, value=value.strip(),
                            words=value.split())


def measure(run, seconds):
    """["measure", SECONDS]
    Print PROGRAM's resident memory, CPU time and wake-ups (context switches) over SECONDS, as "bench: rss ...,
    cpu ... s per minute (... % of a core), wake-ups ... per second (THREAD N, ...) over N s"."""
    pid = _running(run).proc.pid
    _, cpu0, sw0 = proc_numbers(pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    rss, cpu1, sw1 = proc_numbers(pid)
    elapsed = time.monotonic() - t0
    per = {}
    for key, count in sw1.items():
        name = key.split(" ", 1)[1]
        per[name] = per.get(name, 0) + (count - sw0.get(key, 0)) / elapsed
    total = sum(per.values())
    detail = ", ".join("%s %.1f" % (n, v) for n, v in sorted(per.items()))
    cpu = cpu1 - cpu0
    rss_kb = int(rss.split()[0]) if rss.split() and rss.split()[0].isdigit() else None
    results.say("bench: rss %s, cpu %.3f s per minute (%.2f %% of a core), wake-ups %.1f per second (%s) over %.0f s"
                % (rss, cpu * 60 / elapsed, cpu * 100 / elapsed, total, detail, elapsed),
                "measure", seconds=elapsed, rss_kb=rss_kb, cpu_seconds_per_minute=cpu * 60 / elapsed,
                cpu_percent=cpu * 100 / elapsed, wakeups_per_second=total, wakeups_by_thread=per)


def proc_numbers(pid):
    """VmRSS, CPU seconds (from each thread's schedstat, in ns) and context switches per thread name."""
    rss = "?"
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = line.split(":")[1].strip()
    cpu = 0.0
    switches = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                cpu += int(f.read().split()[0]) / 1e9
            name = "?"
            count = 0
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("Name:"):
                        name = line.split(":", 1)[1].strip()
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        count += int(line.split(":")[1])
            switches[tid + " " + name] = count
        except FileNotFoundError:
            pass
    return rss, cpu, switches


def stop(proc):
    """SIGTERMs PROC and waits for it; SIGKILL after 5 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _running(run):
    """The run, once PROGRAM has been started."""
    if run.proc is None:
        raise Failure("no start step ran before")
    return run
