// fanout-bench: how long a published change takes to reach every one of many subscribers.
//
// Two modes, both reading N subscribers from one thread with poll() and timing each event line with
// CLOCK_MONOTONIC once the whole line has been read:
//
// - In process (default): runs the service's own publisher, socket server and engine in this process,
//   connects N subscribers over the Unix socket, and plays a synthetic trace in real time on a feeder
//   thread, which notes the monotonic time just before each sample that causes a change enters the engine.
//   Latency = the time a subscriber has read the whole event line - that time.
// - Connected (`--connect PATH`): connects N subscribers to a running rotationd, waits for hello and state
//   on each and for the state to stay quiet, signals readiness (`--ready-file`), then times the next
//   `--changes` state events that whatever drives the sensor causes. Latency = the time a subscriber has
//   read the whole line - the event's own `t`, which for live input is the CLOCK_MONOTONIC time at which the
//   sample that caused the change was read (printed with 0.1 ms resolution).
import Glibc
import RotationEngine
import RotationProtocol
import RotationService
import RotationSystem

struct BenchOptions {
    var clients = 1000
    var changes = 40
    var hold = 0.25
    var rate = 100.0
    var connect: String?
    var readyFile: String?
    var timeout: Double?
}

var opts = BenchOptions()
var argv = Array(CommandLine.arguments.dropFirst())
while !argv.isEmpty {
    let a = argv.removeFirst()
    func text() -> String {
        guard let v = argv.first else { print("fanout-bench: \(a) needs a value"); exit(2) }
        argv.removeFirst()
        return v
    }
    func next() -> Double {
        guard let v = argv.first.flatMap(Double.init) else {
            print("fanout-bench: \(a) needs a number"); exit(2)
        }
        argv.removeFirst()
        return v
    }
    switch a {
    case "--clients", "--subscribers": opts.clients = Int(next())
    case "--changes": opts.changes = Int(next())
    case "--hold": opts.hold = next()
    case "--rate": opts.rate = next()
    case "--connect": opts.connect = text()
    case "--ready-file": opts.readyFile = text()
    case "--timeout": opts.timeout = next()
    case "-h", "--help":
        print("""
        usage: fanout-bench [--clients N] [--changes N] [--hold SECONDS] [--rate HZ]
               fanout-bench --connect SOCKET [--subscribers N] [--changes N] [--ready-file PATH] [--timeout SECONDS]
        """)
        exit(0)
    default: print("fanout-bench: unknown option \(a)"); exit(2)
    }
}

final class FeedLog: @unchecked Sendable {
    var causeTime: [Int: Double] = [:]
    var finished = false
    let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(lock, nil) }
}

/// Raises the soft open-file limit to `needed` if the hard limit allows; false when it does not.
func raiseOpenFiles(to needed: Int) -> Bool {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < rlim_t(needed) {
        limit.rlim_cur = min(max(rlim_t(needed), limit.rlim_cur), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    guard limit.rlim_cur >= rlim_t(needed) else {
        print("fanout-bench: RLIMIT_NOFILE hard limit \(limit.rlim_max) is below the \(needed) descriptors needed; raise it (ulimit -Hn)")
        return false
    }
    return true
}

/// Connects one blocking Unix stream socket to `path`; the descriptor, or nil with errno set.
func connectUnix(_ path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
    let rc = withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if rc != 0 {
        let saved = errno
        close(fd)
        errno = saved
        return nil
    }
    return fd
}

/// Prints the latency summary lines shared by both modes.
func printLatencies(_ sorted: [Double], clients: Int, missing: Int, gaps: Int, changesLine: String) {
    func pct(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)] * 1000
    }
    func ms(_ v: Double) -> String { JSONWriter.format(v, decimals: 2) + " ms" }
    print("subscribers:   \(clients)")
    print("changes:       \(changesLine)")
    print("deliveries:    \(sorted.count) measured, \(missing) missing, \(gaps) seq gaps")
    print("latency p50:   \(ms(pct(50)))")
    print("latency p99:   \(ms(pct(99)))")
    print("latency max:   \(ms(sorted.last.map { $0 * 1000 } ?? .nan))")
}

/// A synthetic trace at `opts.rate` Hz: upright for a second, then a quarter turn every `opts.hold` seconds,
/// `opts.changes` times.
func syntheticTrace(_ opts: BenchOptions) -> [Sample] {
    let poses = [Vector3(0, -9.81, 0), Vector3(9.81, 0, 0), Vector3(0, 9.81, 0), Vector3(-9.81, 0, 0)]
    var samples: [Sample] = []
    var t = 0.0
    func hold(_ p: Vector3, _ seconds: Double) {
        for _ in 0..<Int(seconds * opts.rate) {
            samples.append(Sample(time: t, acceleration: p))
            t += 1 / opts.rate
        }
    }
    hold(poses[0], 1.0)
    for k in 1...opts.changes { hold(poses[k % 4], opts.hold) }
    return samples
}

/// The service's own socket server, publisher and engine in this process, serving on `path`, started; nil (said)
/// when the socket cannot be made.
func startService(_ opts: BenchOptions, path: String) -> (server: SocketServer, runner: EngineRunner)? {
    let listener: ListeningSocket
    do { listener = try ListeningSocket.bind(path: path, mode: 0o600) } catch {
        print("fanout-bench: \(error)"); return nil
    }
    let cameras = Camera.defaults
    var limits = ServerLimits()
    limits.maxClients = opts.clients + 16
    let server: SocketServer
    do {
        server = try SocketServer(listener: listener, identity: .init(sensor: "bench"),
                                  initial: StateEvent(seq: 0, time: .nan, state: .initial, cameras: cameras), limits: limits)
    } catch {
        print("fanout-bench: \(error)"); return nil
    }
    let publisher = Publisher(outputs: [server])
    let runner = EngineRunner(engine: OrientationEngine(), cameras: cameras, sensor: .ok, publisher: publisher)
    signal(SIGPIPE, SIG_IGN)
    server.start()
    return (server, runner)
}

/// Connects `count` subscribers to `path` and waits up to 30 s for each one's first state; nil (said) when one
/// cannot connect or is not greeted.
func connectSubscribers(_ count: Int, to path: String) -> Subscribers? {
    var fds: [Int32] = []
    for _ in 0..<count {
        guard let fd = connectUnix(path) else {
            print("fanout-bench: connect failed: \(Errno.current)"); return nil
        }
        fds.append(fd)
    }
    let subs = Subscribers(fds: fds)
    let connectDeadline = MonotonicClock.now() + 30
    while !subs.allGreeted(needHello: false) && MonotonicClock.now() < connectDeadline { subs.readAll(timeout: 100) }
    guard subs.allGreeted(needHello: false) else { print("fanout-bench: not every subscriber was greeted"); return nil }
    return subs
}

/// Plays `trace` into `runner` in real time on a thread of its own, as the daemon does, noting in `log` the time
/// just before each sample that causes a change enters the engine, and when the trace is over.
func startFeeder(_ trace: [Sample], into runner: EngineRunner, log: FeedLog) -> SystemThread {
    SystemThread.start {
        let start = MonotonicClock.now()
        for s in trace {
            let due = start + s.time
            let left = due - MonotonicClock.now()
            if left > 0 { MonotonicClock.sleep(left) }
            let before = runner.changes
            let at = MonotonicClock.now()
            runner.feed(s)
            if runner.changes != before {
                pthread_mutex_lock(log.lock)
                log.causeTime[runner.changes] = at
                pthread_mutex_unlock(log.lock)
            }
        }
        pthread_mutex_lock(log.lock)
        log.finished = true
        pthread_mutex_unlock(log.lock)
    }
}

/// Reads the subscribers until the feeder has played the whole trace, and for a second more.
func drain(_ subs: Subscribers, feeding log: FeedLog) {
    var finished = false
    var drainUntil = Double.infinity
    while MonotonicClock.now() < drainUntil {
        subs.readAll(timeout: 20)
        if !finished {
            pthread_mutex_lock(log.lock)
            finished = log.finished
            pthread_mutex_unlock(log.lock)
            if finished { drainUntil = MonotonicClock.now() + 1 }
        }
    }
}

/// Runs the in-process benchmark; 0 when every subscriber got every change without a gap.
func runBench(_ opts: BenchOptions) -> Int32 {
    // Each subscriber needs a descriptor on both ends.
    guard raiseOpenFiles(to: 2 * opts.clients + 64) else { return 1 }
    let trace = syntheticTrace(opts)
    let path = "/tmp/fanout-bench-\(getpid()).sock"
    guard let (server, runner) = startService(opts, path: path),
          let subs = connectSubscribers(opts.clients, to: path) else { return 1 }
    let log = FeedLog()
    let feeder = startFeeder(trace, into: runner, log: log)
    drain(subs, feeding: log)
    feeder.join()
    server.close()

    let causes = log.causeTime
    var latencies: [Double] = []
    var missing = 0
    for i in 0..<opts.clients {
        for (seq, at) in causes {
            if let got = subs.received[i][seq] { latencies.append(got - at) } else { missing += 1 }
        }
    }
    latencies.sort()
    printLatencies(latencies, clients: opts.clients, missing: missing, gaps: subs.gaps,
                   changesLine: "\(causes.count) (one every \(opts.hold) s, \(Int(opts.rate)) Hz samples)")
    return missing == 0 && subs.gaps == 0 ? 0 : 1
}

/// Connects `count` subscribers to `path`: the first waits up to 20 s for the service to be listening, the rest
/// must succeed at once; nil (said) when one cannot.
func connectWaiting(_ count: Int, to path: String) -> [Int32]? {
    var fds: [Int32] = []
    let listenDeadline = MonotonicClock.now() + 20
    while fds.isEmpty {
        if let fd = connectUnix(path) { fds.append(fd); break }
        guard MonotonicClock.now() < listenDeadline else {
            print("fanout-bench: cannot connect to \(path): \(Errno.current)"); return nil
        }
        MonotonicClock.sleep(0.05)
    }
    while fds.count < count {
        guard let fd = connectUnix(path) else {
            print("fanout-bench: connect \(fds.count + 1) failed: \(Errno.current)"); return nil
        }
        fds.append(fd)
    }
    return fds
}

/// Reads until no state arrives for a second (at most 20 s): the service has started sampling and made its first
/// decision.
func settle(_ subs: Subscribers) {
    var lastChange = MonotonicClock.now(), seen = subs.maxSeq
    let quietDeadline = MonotonicClock.now() + 20
    while MonotonicClock.now() - lastChange < 1 && MonotonicClock.now() < quietDeadline {
        subs.readAll(timeout: 50)
        if subs.maxSeq != seen { seen = subs.maxSeq; lastChange = MonotonicClock.now() }
    }
}

/// Every subscriber's latency for each state after `baseline` through `last`, sorted, with the deliveries missing
/// and the states without a time of their own.
func eventLatencies(_ subs: Subscribers, after baseline: Int, through last: Int,
                    clients: Int) -> (latencies: [Double], missing: Int, untimed: Int) {
    var latencies: [Double] = []
    var missing = 0, untimed = 0
    if last > baseline {
        for seq in (baseline + 1)...last {
            guard let t = subs.eventTime[seq], t.isFinite else { untimed += 1; continue }
            for i in 0..<clients {
                if let got = subs.received[i][seq] { latencies.append(got - t) } else { missing += 1 }
            }
        }
    }
    return (latencies.sorted(), missing, untimed)
}

/// Runs against an existing service's socket; 0 when every subscriber got every expected change without a gap.
func runConnected(_ opts: BenchOptions, path: String) -> Int32 {
    guard raiseOpenFiles(to: opts.clients + 64) else { return 1 }
    signal(SIGPIPE, SIG_IGN)
    guard let fds = connectWaiting(opts.clients, to: path) else { return 1 }
    let subs = Subscribers(fds: fds)

    let greetDeadline = MonotonicClock.now() + 30
    while !subs.allGreeted(needHello: true) && MonotonicClock.now() < greetDeadline { subs.readAll(timeout: 100) }
    guard subs.allGreeted(needHello: true) else {
        print("fanout-bench: not every subscriber got hello and state within 30 s"); return 1
    }
    // Let the service settle (sampling starting, the first decision) until no state arrives for a second.
    settle(subs)
    let baseline = subs.maxSeq
    if let readyFile = opts.readyFile {
        let fd = open(readyFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { print("fanout-bench: cannot create \(readyFile): \(Errno.current)"); return 1 }
        close(fd)
    }

    // Time the next `changes` events, then give stragglers a second.
    let deadline = MonotonicClock.now() + (opts.timeout ?? Double(opts.changes) * 2 + 30)
    while subs.maxSeq < baseline + opts.changes && MonotonicClock.now() < deadline { subs.readAll(timeout: 20) }
    let drainUntil = MonotonicClock.now() + 1
    while MonotonicClock.now() < drainUntil { subs.readAll(timeout: 20) }
    for fd in fds { close(fd) }

    let last = min(subs.maxSeq, baseline + opts.changes)
    let (latencies, missing, untimed) = eventLatencies(subs, after: baseline, through: last, clients: opts.clients)
    let count = max(0, last - baseline)
    var changesLine = "\(count) of \(opts.changes) expected, after state seq \(baseline)"
    if untimed > 0 { changesLine += "; \(untimed) without a time" }
    printLatencies(latencies, clients: opts.clients, missing: missing, gaps: subs.gaps, changesLine: changesLine)
    return count == opts.changes && missing == 0 && untimed == 0 && subs.gaps == 0 ? 0 : 1
}

if let path = opts.connect {
    exit(runConnected(opts, path: path))
}
exit(runBench(opts))
