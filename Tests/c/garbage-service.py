#!/usr/bin/python3
"""A fake rotationd that sends garbage, for the C library's tests: standard library only.

usage: garbage-service.py SOCKET

Listens on SOCKET and answers each connection in turn with one kind of garbage: binary junk instead of a greeting,
a greeting of protocol 2, a line of 6000 bytes, and then, from the fourth connection on, a good greeting followed
by malformed lines and lines with wrong members, and one good state (seq 777, the device left-up, t now on
CLOCK_MONOTONIC) with the replay's back and front cameras. It keeps that connection open until it is stopped.
"""
import json
import os
import socket
import sys
import time

BAD_LINES = [
    b"\x00\x01\x02\xff\xfe garbage",
    b"{]",
    b"null",
    b"[1,2,3]",
    b'{"type":"state","seq":"seven"}',
    b'{"type":"state","seq":1,"t":1e999,"rotation":90}',
    b'{"type":"state","seq":2,"t":1,"rotation":45,"cameras":[]}',
    b'{"type":"state","seq":3,"t":1,"rotation":90,"cameras":[{"name":"back","mount":720,"capture":90}]}',
    b'{"type":"state","seq":4,"t":1,"rotation":90,"cameras":[{"name":"back","mount":0,"capture":90,"exif":3}]}',
    b'{"type":"state","seq":5,"t":1,"rotation":90,"cameras":' + b"[" * 64 + b"]" * 64 + b"}",
    b'{"type":"state","seq":18446744073709551616,"t":1,"rotation":90}',
    b'{"type":"st\xc3\x28te","seq":6}',
    b'{"type":"error","code":"flood","message":"x"}',
]


def cameras(rotation, back_device, front_device):
    back, front = (90 + rotation) % 360, (270 - rotation) % 360
    exif = {0: 1, 90: 6, 180: 3, 270: 8}
    return [
        {"name": "back", "facing": "back", "mount": 90, "device": back_device, "model": None,
         "source": {"facing": "config", "mount": "config"}, "libcamera": None, "bus_path": None, "nodes": [back_device],
         "capture": back, "exif": exif[back]},
        {"name": "front", "facing": "front", "mount": 270, "device": front_device, "model": None,
         "source": {"facing": "config", "mount": "config"}, "libcamera": None, "bus_path": None, "nodes": [front_device],
         "capture": front, "exif": exif[front]},
    ]


def main():
    path, back_device, front_device = sys.argv[1], sys.argv[2], sys.argv[3]
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    kept = []
    n = 0
    while True:
        conn, _ = listener.accept()
        n += 1
        try:
            if n == 1:
                conn.sendall(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR garbage\n")
            elif n == 2:
                conn.sendall(b'{"type":"hello","protocol":2,"service":"rotationd"}\n')
            elif n == 3:
                conn.sendall(b'{"type":"hello","protocol":1,"x":"' + b"a" * 6000 + b'"}\n')
            else:
                conn.sendall(b'{"type":"hello","protocol":1,"service":"rotationd","version":"9.9","sensor":null,"cameras":[],'
                             b'"events":["state"],"samples":false}\n')
                conn.sendall(b"\n".join(BAD_LINES) + b"\n")
                state = {"type": "state", "seq": 777, "t": round(time.monotonic(), 4), "rotation": 90, "orientation": "left-up",
                         "tilt": "vertical", "flat": False, "inputs": "accel", "sensor": "ok",
                         "cameras": cameras(90, back_device, front_device)}
                conn.sendall(json.dumps(state, separators=(",", ":")).encode() + b"\n")
                conn.sendall(b"\n".join(BAD_LINES[:4]) + b"\n")
                kept.append(conn)
                continue
        except OSError:
            pass
        conn.close()


if __name__ == "__main__":
    main()
