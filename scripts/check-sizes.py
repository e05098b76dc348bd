#!/usr/bin/env python3
"""Checks the sizes the sources keep to: no Swift file in Sources/ over 400 lines, no function (func, init, deinit,
a closure-bodied computed property is not counted) over 60 lines from its declaration to its closing brace.

    scripts/check-sizes.py [ROOT]

Prints each file and function over its limit, then a summary line; exits 1 when there is one."""
import os
import re
import sys

FILE_LIMIT = 400
FUNCTION_LIMIT = 60
DECLARATION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|"
                         r"final|override|mutating|nonmutating|convenience|required|nonisolated|isolated|@inlinable|"
                         r"@discardableResult)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b)")


def strip(line):
    """The line without string literals and a trailing // comment, so that their braces are not counted."""
    out, i, quote = [], 0, False
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif line.startswith("//", i):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def functions(lines):
    """(name, first line, length) of each function, by counting braces from its declaration."""
    found = []
    for start, line in enumerate(lines):
        m = DECLARATION.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            text = strip(lines[end])
            depth += text.count("{") - text.count("}")
            opened = opened or "{" in text
            if opened and depth <= 0:
                found.append((m.group(1).split("(")[0].strip(), start + 1, end - start + 1))
                break
            if not opened and end > start and text.strip() and not text.rstrip().endswith((",", "(", "->")) \
                    and "{" not in text and end - start > 8:
                break  # a protocol requirement: no body
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = 0
    files = 0
    for folder, _, names in sorted(os.walk(os.path.join(root, "Sources"))):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            files += 1
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            relative = os.path.relpath(path, root)
            if len(lines) - 1 > FILE_LIMIT:
                print("%s: %d lines, over %d" % (relative, len(lines) - 1, FILE_LIMIT))
                problems += 1
            for function, line, length in functions(lines):
                if length > FUNCTION_LIMIT:
                    print("%s:%d: %s is %d lines, over %d" % (relative, line, function, length, FUNCTION_LIMIT))
                    problems += 1
    print("check-sizes: %d Swift files, %d over a limit" % (files, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
