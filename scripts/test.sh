#!/bin/sh
# Runs the whole test suite. The sensor and service tests start the real binaries, and the packaging tests
# read the Debian package, so build both first: the debug build, then the static release build and the
# package in dist/ (`make deb`).
set -e
cd "$(dirname "$0")/.."
swift build
make deb
swift test
