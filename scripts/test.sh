#!/bin/sh
# Runs the whole test suite. The sensor and service tests start the real binaries, and the packaging tests
# read the Debian package, so build both first: the debug build, then the static release build and the
# package in dist/ (`make deb`). Then the same suite runs again under ThreadSanitizer and under
# AddressSanitizer, with every program the tests start built the same way (scripts/test-sanitizers.sh).
set -e
cd "$(dirname "$0")/.."
swift build
make deb
swift test
./scripts/test-sanitizers.sh
