"""PROGRAM's Unix socket: connections, the lines received on them (each with its arrival time), and sends."""
import socket
import time

from .common import Failure, Stream


def connect(run, path, seconds):
    """["connect", SOCKET, SECONDS]
    Connect to PROGRAM's Unix socket (retrying until it exists, for SECONDS) and collect the lines it sends; each
    connection is numbered from 1, and its lines are reported as "socket N: LINE" on stdout at the end."""
    deadline = time.monotonic() + seconds
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            break
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise Failure("cannot connect to %s" % path)
            time.sleep(0.05)
    run.sock = sock
    run.sock_stream = Stream(sock.makefile("rb"))
    run.sock_streams.append(run.sock_stream)


def wait_sock(run, pattern, seconds):
    """["wait-sock", REGEX, SECONDS]
    Wait for a line from the socket matching REGEX after the last match."""
    _stream(run).wait(pattern, seconds)


def save_sock(run, path):
    """["save-sock", PATH]
    Write each line received so far on the socket connection to PATH, after the CLOCK_MONOTONIC time it arrived."""
    stream = _stream(run)
    with open(path, "w") as f:
        for when, line in stream.timed():
            f.write("%.6f %s\n" % (when, line))


def send(run, text):
    """["send", TEXT]
    Send TEXT and a newline on the socket connection."""
    if run.sock is None:
        raise Failure("no connection is open")
    run.sock.sendall((text + "\n").encode())


def disconnect(run):
    """["disconnect"]
    Close the socket connection."""
    if run.sock is None:
        raise Failure("no connection is open")
    run.sock.shutdown(socket.SHUT_RDWR)
    run.sock.close()
    run.sock = None


def _stream(run):
    if run.sock_stream is None:
        raise Failure("no connect step ran before")
    return run.sock_stream
