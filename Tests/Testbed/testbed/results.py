"""The results: one JSON object per line in the --results file (schema: ../results.md), beside the human-readable
transcript the driver prints on stderr."""
import json
import re
import sys
import threading

_lock = threading.Lock()
_file = None


def open_results(path):
    """Starts the results file at PATH (None: no results file)."""
    global _file
    if path is not None:
        _file = open(path, "w", buffering=1)


def emit(event, **members):
    """Writes one result line: {"event": EVENT, MEMBERS...}."""
    if _file is None:
        return
    line = json.dumps(dict({"event": event}, **members), separators=(", ", ": "))
    with _lock:
        _file.write(line + "\n")
        _file.flush()


def say(text, event=None, **members):
    """Prints TEXT on stderr (the transcript), and writes the result EVENT with MEMBERS when one is given."""
    print(text, file=sys.stderr, flush=True)
    if event is not None:
        emit(event, **members)


def close(status):
    """Ends the results file with its "end" line."""
    global _file
    emit("end", status=status)
    if _file is not None:
        with _lock:
            _file.close()
            _file = None


# The emulated kernel's log lines (Tests/Testbed/kernel): write, refused open, slow raw read.
_WRITE = re.compile(r'^write (\S+) (\S+) "(.*)" (\S+)(?: (.*))?$')
_REFUSED_WRITE = re.compile(r"^write (\S+) (\S+) (E[A-Z0-9]+) (.*)$")
_OPEN = re.compile(r"^open (\S+) (\S+) (\S+)(?: (.*))?$")
_READ = re.compile(r"^read (\S+) (\S+) slept ([0-9.]+) ms at ([0-9.]+)$")


def kernel_line(line, neighbour):
    """The result of one line of the emulated kernel's log (neighbour: from the neighbours' log)."""
    m = _WRITE.match(line)
    if m:
        device, file, value, result, why = m.groups()
        return dict(event="kernel-write", device=device, file=file, value=value, result=result, why=why or None,
                    neighbour=neighbour, line=line)
    m = _REFUSED_WRITE.match(line)
    if m:
        device, file, result, why = m.groups()
        return dict(event="kernel-write", device=device, file=file, value=None, result=result, why=why or None,
                    neighbour=neighbour, line=line)
    m = _READ.match(line)
    if m:
        device, file, ms, at = m.groups()
        return dict(event="kernel-read", device=device, file=file, slept_ms=float(ms), at=float(at),
                    neighbour=neighbour, line=line)
    m = _OPEN.match(line)
    if m:
        device, node, error, why = m.groups()
        return dict(event="kernel-open", device=device, node=node, errno=error, why=why or None,
                    neighbour=neighbour, line=line)
    return dict(event="kernel-line", line=line, neighbour=neighbour)


def kernel_log(lines, neighbour):
    """Prints a kernel log on stderr ("kernel: LINE", or "neighbours-kernel: LINE") and writes its results."""
    prefix = "neighbours-kernel: " if neighbour else "kernel: "
    for line in lines:
        print(prefix + line, file=sys.stderr)
        emit(**kernel_line(line, neighbour))
