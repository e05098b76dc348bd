#!/usr/bin/python3
"""Runs a command in a terminal, as a person would, and prints what its screen shows: run by the driver instead of
rotationd (MountFixTests), it shows a program's prompts and in-place progress lines as they are drawn.

    tmux-pane.py SOCKET -- COMMAND [ARG...]

Starts COMMAND in a detached tmux session named "pane" (100 columns, 40 rows, no configuration) on the server
socket SOCKET: the server outside the testbed (this process's environment without umockdev's LD_PRELOAD and
UMOCKDEV_DIR), COMMAND inside it, so that it sees the emulated devices. Then reads the pane's screen every 50 ms
(tmux capture-pane) and, for each row whose text changed since the last read, prints "row N: TEXT" (N from 0,
trailing blanks removed; rows still blank are not printed). The test drives the program with exec steps of its
own, "tmux -S SOCKET send-keys -t pane ...". When the command ends (the pane is kept, dead), prints the screen's
changed rows a last time and "pane: exited STATUS" (the status the command's shell printed), kills the server and
exits 0. SIGTERM kills the server too. Each line is flushed at once."""
import os
import signal
import subprocess
import sys
import time


# What puts a process in the testbed: the tmux server, which needs none of it, runs without these, and gives them
# back to the command alone.
TESTBED = ("LD_PRELOAD", "UMOCKDEV_DIR")


def tmux(socket, *args):
    """Runs one tmux command on SOCKET, outside the testbed; its stdout, or None when it failed."""
    outside = {k: v for k, v in os.environ.items() if k not in TESTBED}
    done = subprocess.run(["tmux", "-f", "/dev/null", "-S", socket] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, env=outside)
    return done.stdout if done.returncode == 0 else None


def say(text):
    print(text, flush=True)


def show(socket, last):
    """Prints the rows that changed since LAST (a list of rows); returns the screen now, or LAST if unreadable."""
    text = tmux(socket, "capture-pane", "-p", "-t", "pane")
    if text is None:
        return last
    rows = [row.rstrip() for row in text.split("\n")]
    for n, row in enumerate(rows):
        if n >= len(last) or last[n] != row:
            say("row %d: %s" % (n, row))
    return rows


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        say("usage: tmux-pane.py SOCKET -- COMMAND [ARG...]")
        return 2
    socket, command = sys.argv[1], sys.argv[3:]
    # A mask inherited from the test's thread would reach the server, which restores it after its start: with
    # SIGCHLD blocked it never reaps its pane's command.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: (tmux(socket, "kill-server"), sys.exit(0)))
    # The pane stays once its command ends (remain-on-exit, set before the command starts), for its last screen.
    if tmux(socket, "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-s", "pane", "-x", "100", "-y", "40", "--", *inside(command)) is None:
        say("pane: tmux could not start the session")
        return 1
    screen = [""] * 64
    while not dead(socket):
        screen = show(socket, screen)
        time.sleep(0.05)
    screen = show(socket, screen)
    say("pane: exited %s" % exit_status(screen))
    tmux(socket, "kill-server")
    return 0


def inside(command):
    """COMMAND run by env with the testbed's variables of this process, so that it sees the emulated devices, by a
    shell that prints its exit status when it ends ("[exited N]"): tmux marks a pane dead as its terminal closes,
    and knows the status only once it has reaped the command, which can come seconds later."""
    report = '"$@"; s=$?; printf "\\n[exited %d]\\n" "$s"; exit "$s"'
    testbed = ["%s=%s" % (k, os.environ[k]) for k in TESTBED if k in os.environ]
    return ["sh", "-c", report, "sh", "env"] + testbed + command


def dead(socket):
    """Whether the pane's command has ended (or the pane is gone)."""
    state = tmux(socket, "display-message", "-p", "-t", "pane", "#{pane_dead}")
    return state is None or state.startswith("1")


def exit_status(screen):
    """The command's exit status, from the line its shell printed last on SCREEN; "?" without one."""
    for row in reversed(screen):
        if row.startswith("[exited ") and row.endswith("]"):
            return row[len("[exited "):-1]
    return "?"


if __name__ == "__main__":
    sys.exit(main())
