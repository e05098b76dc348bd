#!/bin/sh
# Runs the whole test suite. The sensor and service tests start the real binaries, so build them first.
set -e
cd "$(dirname "$0")/.."
swift build
swift test
