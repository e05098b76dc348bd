#!/usr/bin/env python3
"""Subscribe to rotationd and print each rotation change (standard library only).

usage: subscribe.py [--socket PATH] [--count N] [--json] [--prefer KEY]

The socket is --socket, else $ROTATIOND_SOCKET, else $XDG_RUNTIME_DIR/rotationd.sock when it exists
(not as root), else /run/rotationd/rotationd.sock. With --count N it exits after N state messages (the current state
counts as the first); otherwise it runs until interrupted. Exit status 2 when no service is running.

Each line names the camera to open, the one the service recommends to this user ("open=NAME"); a camera program
follows a change of it only while it is not recording. --prefer KEY first makes the camera KEY names (its name,
device node, libcamera id or bus path) this user's preferred camera ('' forgets the choice), then prints as usual:
the service's answer is the first state after the current one.
"""
import argparse
import json
import os
import socket
import sys


SYSTEM_SOCKET = "/run/rotationd/rotationd.sock"
ADVICE = ("start rotationd (systemctl start rotationd.socket, or rotationd --serve), "
          "or point at its socket with --socket PATH or ROTATIOND_SOCKET")


def default_socket():
    env = os.environ.get("ROTATIOND_SOCKET")
    if env:
        return env
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if os.geteuid() != 0 and runtime:
        user = os.path.join(runtime, "rotationd.sock")
        if os.path.exists(user):
            return user
    return SYSTEM_SOCKET


def no_service(path, why):
    print(f"subscribe.py: no rotation service at {path} ({why}); {ADVICE}", file=sys.stderr)
    return 2


def main():
    parser = argparse.ArgumentParser(description="Print rotationd's rotation changes.")
    parser.add_argument("--socket", default=None, help="the service's socket")
    parser.add_argument("--count", type=int, default=0, help="exit after this many state messages")
    parser.add_argument("--json", action="store_true", help="print the raw JSON lines")
    parser.add_argument("--prefer", default=None, metavar="KEY",
                        help="make the camera KEY names your preferred camera ('' forgets it)")
    args = parser.parse_args()
    path = args.socket or default_socket()

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        return no_service(path, e.strerror)
    stream = sock.makefile("r", encoding="utf-8", newline="\n")
    try:
        first = stream.readline()
    except OSError as e:
        return no_service(path, e.strerror)
    if not first:
        return no_service(path, "it closed the connection before greeting")
    try:
        hello = json.loads(first)
    except ValueError:
        hello = None
    if not isinstance(hello, dict) or hello.get("type") != "hello" or hello.get("protocol") != 1:
        print(f"subscribe.py: unexpected greeting {first.strip()!r}; is {path} a rotationd socket?", file=sys.stderr)
        return 1
    cameras = ", ".join(c["name"] + (" (infrared)" if c.get("infrared") else "") for c in hello["cameras"]) or "none"
    print(f"# {hello['service']} {hello['version']}, sensor {hello['sensor']}, cameras {cameras}", flush=True)
    if args.prefer is not None:
        # Answered by a state (the user's, with "preferred") or an error that says why.
        command = {"cmd": "prefer", "camera": args.prefer or None}
        sock.sendall((json.dumps(command) + "\n").encode())

    seen = 0
    try:
        for line in stream:
            message = json.loads(line)
            if message.get("type") == "error":
                print(f"subscribe.py: the service refused: {message.get('message')}", file=sys.stderr)
                return 1
            if message.get("type") != "state":
                continue
            seen += 1
            if args.json:
                print(line.rstrip("\n"), flush=True)
            else:
                captures = " ".join(f"{c['name']}={c['capture']}" for c in message["cameras"])
                missed = f" missed={message['missed']}" if message.get("missed") else ""
                # idle: the service samples only while someone listens; a state with the real status follows.
                sensor = "" if message.get("sensor") == "ok" else f" sensor={message.get('sensor')}"
                # The camera to open; absent from a service older than preferred cameras.
                preferred = f" open={message['preferred']}" if message.get("preferred") else ""
                print(f"seq={message['seq']} t={message['t']} orientation={message['orientation']} "
                      f"rotation={message['rotation']} tilt={message['tilt']} {captures}{preferred}{missed}{sensor}", flush=True)
            if args.count and seen >= args.count:
                return 0
    except OSError as e:
        print(f"subscribe.py: the connection failed: {e.strerror}", file=sys.stderr)
        return 1
    print("subscribe.py: the service closed the connection", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
