"""The steps: ONE table from each verb to the function that runs it. Each function's docstring documents its verb,
its first line the step's form; `umockdev-driver.py --help` prints them all, in this order."""
import inspect

from . import cameras, desktop, evdev, feeds, files, neighbours, player, program, sleep, sockets, switches
from .common import Failure

VERBS = {
    # The program and its output
    "start": program.start,
    "wait": program.wait,
    "wait-err": program.wait_err,
    "alive": program.alive,
    "stop": program.stop_step,
    "exit": program.exit_step,
    "signal": program.signal_step,
    "ended": program.ended_step,
    "run": program.run_step,
    "credentials": program.credentials,
    "measure": program.measure,
    # Its socket
    "connect": sockets.connect,
    "wait-sock": sockets.wait_sock,
    "save-sock": sockets.save_sock,
    "send": sockets.send,
    "disconnect": sockets.disconnect,
    # The testbed's files and devices
    "set": files.set_step,
    "remove": files.remove,
    "add": files.add,
    "uevent": files.uevent,
    "expect-file": files.expect_file,
    "wait-file": files.wait_file,
    "chmod": files.chmod,
    "chown": files.chown,
    "mkdir": files.mkdir,
    "exec": files.exec_step,
    "sleep": files.sleep,
    # Feeds and the trace player
    "feed": feeds.feed,
    "feed-stop": feeds.feed_stop,
    "feed-trace": feeds.feed_trace,
    "play": player.play,
    "wait-play": player.wait_play,
    # Sleep and wake
    "suspend": sleep.suspend,
    "asleep": sleep.asleep,
    # Neighbours
    "sensor-proxy": neighbours.sensor_proxy,
    "wait-proxy": neighbours.wait_proxy,
    "raw-poller": neighbours.raw_poller,
    # Cameras
    "v4l2-controls": cameras.v4l2_controls,
    "media-graph": cameras.media_graph,
    "guard-video-nodes": cameras.guard_video_nodes,
    # Input switches
    "switches": switches.switches,
    "switch": switches.switch,
    "uinput": switches.uinput,
    "read-switches": switches.read_switches,
    # The desktop's input: the internal keyboard, and the real libinput
    "keyboard": evdev.keyboard,
    "key": evdev.key,
    "libinput": desktop.libinput,
    "wait-libinput": desktop.wait_libinput,
}


def form(verb):
    """The step's form, the first line of its function's docstring."""
    return inspect.getdoc(VERBS[verb]).splitlines()[0]


def usage():
    """Every verb's documentation, in the table's order."""
    out = []
    for verb, function in VERBS.items():
        lines = inspect.getdoc(function).splitlines()
        out.append("    " + lines[0])
        out += ["        " + line for line in lines[1:]]
    return "\n".join(out)


def run_step(run, step):
    """Runs one step: its verb's function with the step's arguments."""
    if not isinstance(step, list) or not step or step[0] not in VERBS:
        raise Failure("unknown step %r" % (step[0] if isinstance(step, list) and step else step))
    function = VERBS[step[0]]
    try:
        inspect.signature(function).bind(run, *step[1:])
    except TypeError:
        raise Failure("wrong arguments: the step's form is %s" % form(step[0]))
    function(run, *step[1:])


def run_steps(run):
    """Runs the steps in order until one fails; returns the failure, (step, message), or None."""
    for run.index, step in enumerate(run.actions):
        run.step = step
        try:
            run_step(run, step)
        except Failure as e:
            # A trace held past its hold_until's timeout is why a later wait failed: name the hold.
            return run.late_failure or (step, str(e))
        if run.late_failure:
            return run.late_failure
    for hold in run.holds:
        hold.settle()
    return run.late_failure

