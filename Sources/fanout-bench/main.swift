// fanout-bench: how long a published change takes to reach every one of many subscribers.
//
// Runs the service's own publisher, socket server and engine in this process, connects N subscribers
// over the Unix socket and reads them from one thread with poll(). A feeder thread plays a synthetic
// trace in real time; for every sample that causes a change it notes the monotonic time just before the
// sample enters the engine. Latency = the time a subscriber has read the whole event line - that time.
import Glibc
import RotationEngine
import RotationService

struct BenchOptions {
    var clients = 1000
    var changes = 40
    var hold = 0.25
    var rate = 100.0
}

var opts = BenchOptions()
var argv = Array(CommandLine.arguments.dropFirst())
while !argv.isEmpty {
    let a = argv.removeFirst()
    func next() -> Double {
        guard let v = argv.first.flatMap(Double.init) else {
            print("fanout-bench: \(a) needs a number"); exit(2)
        }
        argv.removeFirst()
        return v
    }
    switch a {
    case "--clients": opts.clients = Int(next())
    case "--changes": opts.changes = Int(next())
    case "--hold": opts.hold = next()
    case "--rate": opts.rate = next()
    case "-h", "--help":
        print("usage: fanout-bench [--clients N] [--changes N] [--hold SECONDS] [--rate HZ]")
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

/// Runs the benchmark; 0 when every subscriber got every change without a gap.
func runBench(_ opts: BenchOptions) -> Int32 {
    // Each subscriber needs a descriptor on both ends.
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let needed = rlim_t(2 * opts.clients + 64)
    if limit.rlim_cur < needed {
        limit.rlim_cur = min(max(needed, limit.rlim_cur), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    guard limit.rlim_cur >= needed else {
        print("fanout-bench: RLIMIT_NOFILE hard limit \(limit.rlim_max) is below the \(needed) descriptors needed; raise it (ulimit -Hn)")
        return 1
    }

    // A synthetic trace: upright, then a quarter turn every `hold` seconds.
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
    let trace = samples

    let path = "/tmp/fanout-bench-\(getpid()).sock"
    let listener: ListeningSocket
    do { listener = try ListeningSocket.bind(path: path, mode: 0o600) } catch {
        print("fanout-bench: \(error)"); return 1
    }
    let cameras = Camera.defaults
    var limits = ServerLimits()
    limits.maxClients = opts.clients + 16
    let server: SocketServer
    do {
        server = try SocketServer(listener: listener, identity: .init(sensor: "bench", cameras: cameras),
                                  initial: StateEvent(seq: 0, time: .nan, state: .initial, cameras: cameras), limits: limits)
    } catch {
        print("fanout-bench: \(error)"); return 1
    }
    let publisher = Publisher(outputs: [server])
    let runner = EngineRunner(engine: OrientationEngine(), cameras: cameras, sensor: .ok, publisher: publisher)
    signal(SIGPIPE, SIG_IGN)
    server.start()

    // Connect every subscriber and wait for its greeting and first state.
    var fds: [Int32] = []
    for _ in 0..<opts.clients {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { print("fanout-bench: connect failed: \(String(cString: strerror(errno)))"); return 1 }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        fds.append(fd)
    }

    /// Per subscriber: bytes of an unfinished line, and the receive times of each seq.
    var partial = [[UInt8]](repeating: [], count: opts.clients)
    var received = [[Int: Double]](repeating: [:], count: opts.clients)
    var lastSeq = [Int](repeating: -1, count: opts.clients)
    var gaps = 0
    let seqKey = Array("\"seq\":".utf8)

    func seqOf(_ line: ArraySlice<UInt8>) -> Int? {
        guard line.starts(with: Array("{\"type\":\"state\"".utf8)) else { return nil }
        var i = line.startIndex
        while i + seqKey.count <= line.endIndex {
            if line[i..<(i + seqKey.count)].elementsEqual(seqKey) {
                var j = i + seqKey.count, v = 0
                while j < line.endIndex, line[j] >= 48, line[j] <= 57 { v = v * 10 + Int(line[j] - 48); j += 1 }
                return v
            }
            i += 1
        }
        return nil
    }

    func readAll(timeout: Int32) {
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&pfds, nfds_t(pfds.count), timeout) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 16384)
        for i in 0..<pfds.count where pfds[i].revents != 0 {
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pfds[i].fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                let now = MonotonicTime.now()
                partial[i].append(contentsOf: chunk[..<n])
                while let nl = partial[i].firstIndex(of: 0x0A) {
                    if let seq = seqOf(partial[i][..<nl]) {
                        if seq > 0 && lastSeq[i] >= 0 && seq != lastSeq[i] + 1 && seq != lastSeq[i] { gaps += 1 }
                        lastSeq[i] = seq
                        if received[i][seq] == nil { received[i][seq] = now }
                    }
                    partial[i].removeSubrange(...nl)
                }
            }
        }
    }

    let connectDeadline = MonotonicTime.now() + 30
    while lastSeq.contains(-1) && MonotonicTime.now() < connectDeadline { readAll(timeout: 100) }
    guard !lastSeq.contains(-1) else { print("fanout-bench: not every subscriber was greeted"); return 1 }

    // Feed in real time on a thread of its own, as the daemon does.
    let log = FeedLog()
    let feeder = ServiceThread {
        let start = MonotonicTime.now()
        for s in trace {
            let due = start + s.time
            let left = due - MonotonicTime.now()
            if left > 0 { MonotonicTime.sleep(left) }
            let before = runner.changes
            let at = MonotonicTime.now()
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

    var finished = false
    var drainUntil = Double.infinity
    while MonotonicTime.now() < drainUntil {
        readAll(timeout: 20)
        if !finished {
            pthread_mutex_lock(log.lock)
            finished = log.finished
            pthread_mutex_unlock(log.lock)
            if finished { drainUntil = MonotonicTime.now() + 1 }
        }
    }
    feeder.join()
    server.close()

    let causes = log.causeTime
    var latencies: [Double] = []
    var missing = 0
    for i in 0..<opts.clients {
        for (seq, at) in causes {
            if let got = received[i][seq] { latencies.append(got - at) } else { missing += 1 }
        }
    }
    latencies.sort()
    func pct(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return .nan }
        return latencies[min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)] * 1000
    }
    func ms(_ v: Double) -> String { JSONWriter.format(v, decimals: 2) + " ms" }
    print("subscribers:   \(opts.clients)")
    print("changes:       \(causes.count) (one every \(opts.hold) s, \(Int(opts.rate)) Hz samples)")
    print("deliveries:    \(latencies.count) measured, \(missing) missing, \(gaps) seq gaps")
    print("latency p50:   \(ms(pct(50)))")
    print("latency p99:   \(ms(pct(99)))")
    print("latency max:   \(ms(latencies.last.map { $0 * 1000 } ?? .nan))")
    return missing == 0 && gaps == 0 ? 0 : 1

}

exit(runBench(opts))
