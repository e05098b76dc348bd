"""PROGRAM's Unix socket: connections, the lines received on them (each with its arrival time), and sends."""
import socket
import subprocess
import sys
import time

from .common import Failure, Stream
from .neighbours import outside_environment


def connect(run, path, seconds, uid=None):
    """["connect", SOCKET, SECONDS, UID]
    Connect to PROGRAM's Unix socket (retrying until it exists, for SECONDS) and collect the lines it sends; each
    connection is numbered from 1, and its lines are reported as "socket N: LINE" on stdout at the end. With UID
    (optional, a number; no account is needed) the connection is made by a new process running as that user and
    group, with no supplementary groups, which hands it back to the driver, so that PROGRAM's SO_PEERCRED sees that
    user."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            sock = _connect_once(path, uid)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise Failure("cannot connect to %s%s" % (path, "" if uid is None else " as user %d" % uid))
            time.sleep(0.05)
    run.sock = sock
    run.sock_stream = Stream(sock.makefile("rb"))
    run.sock_streams.append(run.sock_stream)
    run.socks.append(sock)


# What the child running as another user does: connect, and hand the descriptor back over the socket it was given.
_CONNECT_AS = """
import socket, sys
back = socket.socket(fileno=int(sys.argv[2]))
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
socket.send_fds(back, [b"s"], [sock.fileno()])
"""


def _connect_once(path, uid):
    """A connected socket: made here, or by a new process that runs as UID (set up between fork and exec, so that
    nothing of the driver's threads is inherited) and hands the descriptor back."""
    if uid is None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return sock
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            child = subprocess.run([sys.executable, "-c", _CONNECT_AS, path, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                   user=uid, group=uid, extra_groups=[], env=outside_environment(), timeout=10,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OSError("the connection as user %d took more than 10 s" % uid)
        theirs.close()
        if child.returncode != 0:
            raise OSError("the connection as user %d was not made" % uid)
        _, fds, _, _ = socket.recv_fds(ours, 1, 1)
    finally:
        ours.close()
        if theirs.fileno() >= 0:
            theirs.close()
    if not fds:
        raise OSError("the connection as user %d was not handed back" % uid)
    return socket.socket(fileno=fds[0])


def wait_sock(run, pattern, seconds, connection=None):
    """["wait-sock", REGEX, SECONDS, N]
    Wait for a line from the socket matching REGEX after the last match; on the Nth connection (optional, from 1),
    else on the latest."""
    _stream(run, connection).wait(pattern, seconds)


def save_sock(run, path):
    """["save-sock", PATH]
    Write each line received so far on the socket connection to PATH, after the CLOCK_MONOTONIC time it arrived."""
    stream = _stream(run)
    with open(path, "w") as f:
        for when, line in stream.timed():
            f.write("%.6f %s\n" % (when, line))


def send(run, text, connection=None):
    """["send", TEXT, N]
    Send TEXT and a newline on the socket connection: the Nth (optional, from 1), else the latest."""
    sock = run.sock if connection is None else _numbered(run.socks, connection)
    if sock is None or sock.fileno() < 0:
        raise Failure("no connection is open")
    sock.sendall((text + "\n").encode())


def disconnect(run):
    """["disconnect"]
    Close the socket connection."""
    if run.sock is None:
        raise Failure("no connection is open")
    run.sock.shutdown(socket.SHUT_RDWR)
    run.sock.close()
    run.sock = None


def _stream(run, connection=None):
    if connection is not None:
        return _numbered(run.sock_streams, connection)
    if run.sock_stream is None:
        raise Failure("no connect step ran before")
    return run.sock_stream


def _numbered(items, connection):
    if not isinstance(connection, int) or not 1 <= connection <= len(items):
        raise Failure("there is no connection %r (%d made so far)" % (connection, len(items)))
    return items[connection - 1]
