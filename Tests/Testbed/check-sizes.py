#!/usr/bin/python3
"""Checks the driver's size limits: no file of Tests/Testbed's Python over 500 lines, no function over 60.

    Tests/Testbed/check-sizes.py

Prints each file's lines and the five largest functions; exits 1 when a limit is passed."""
import ast
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FILE_LIMIT, FUNCTION_LIMIT = 500, 60


def main():
    files = sorted(glob.glob(os.path.join(HERE, "*.py")) + glob.glob(os.path.join(HERE, "testbed", "*.py"))
                   + glob.glob(os.path.join(HERE, "probes", "*.py")))
    functions, over = [], False
    for path in files:
        with open(path) as f:
            text = f.read()
        lines = text.count("\n")
        name = os.path.relpath(path, HERE)
        print("%5d %s%s" % (lines, name, "  OVER %d" % FILE_LIMIT if lines > FILE_LIMIT else ""))
        over |= lines > FILE_LIMIT
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((node.end_lineno - node.lineno + 1, "%s:%d %s" % (name, node.lineno, node.name)))
    functions.sort(reverse=True)
    print("largest functions:")
    for size, where in functions[:5]:
        print("%5d %s%s" % (size, where, "  OVER %d" % FUNCTION_LIMIT if size > FUNCTION_LIMIT else ""))
    over |= any(size > FUNCTION_LIMIT for size, _ in functions)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
