#!/bin/sh
# Runs the whole test suite, in groups side by side (scripts/test-groups.sh). The sensor and service tests
# start the real binaries, and the packaging tests read the Debian package, so build both first: the debug
# build with the test bundle, then the static release build and the package in dist/ (`make deb`). Then the
# same suite runs again under ThreadSanitizer and under AddressSanitizer, with every program the tests start
# built the same way (scripts/test-sanitizers.sh).
set -e
cd "$(dirname "$0")/.."
swift build --build-tests
make deb
./scripts/test-groups.sh "$(swift build --show-bin-path)"
./scripts/test-sanitizers.sh
