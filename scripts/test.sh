#!/bin/sh
# Runs the whole test suite, in groups side by side (scripts/test-groups.sh), after the C library's and the
# GStreamer element's tests (scripts/test-c.sh). The sensor and service tests start the real binaries, and the
# packaging tests read the Debian package, so build both first: the debug build with the test bundle, then the
# static release build and the package in dist/ (`make deb`). Then the
# same suite runs again under ThreadSanitizer and under AddressSanitizer, with every program the tests start
# built the same way (scripts/test-sanitizers.sh).
set -e
cd "$(dirname "$0")/.."
swift build --build-tests
# The C library and the GStreamer element, against the debug build's rotationd and rotwatch (scripts/test-c.sh).
./scripts/test-c.sh "$(swift build --show-bin-path)"
make deb
./scripts/test-groups.sh "$(swift build --show-bin-path)"
./scripts/test-sanitizers.sh
