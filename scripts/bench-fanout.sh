#!/bin/sh
# Fan-out latency of the socket service: 1000 subscribers (CLIENTS) connected over the Unix socket, a
# change every 0.25 s from a trace played in real time; for each change and each subscriber, the time
# from the sample that caused it entering the engine to the subscriber having read the whole event.
# Prints p50, p99 and max; also saved to Docs/bench-fanout.txt.
#   SCRATCH  build directory (default .build)    CLIENTS  subscribers (default 1000)
#   CHANGES  changes to measure (default 40)
set -e
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
CLIENTS=${CLIENTS:-1000}
CHANGES=${CHANGES:-40}
swift build -c release --scratch-path "$SCRATCH" --product fanout-bench >&2
# Two descriptors per subscriber: raise the soft limit as far as the hard limit allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
{
    echo "fanout-bench (release; server, publisher and engine in process, subscribers read by one poll() thread)"
    echo "machine: $(nproc) cores, $(uname -sr)"
    "$SCRATCH/release/fanout-bench" --clients "$CLIENTS" --changes "$CHANGES" | sed 's/^/  /'
} | tee Docs/bench-fanout.txt
