import Foundation
import Testing

/// Runs a program (the real `rotationd` unless told otherwise) inside an umockdev testbed through the test bed's
/// driver (`driver`), with the driver's steps (`Step`), and returns what it printed and what the driver reported.
///
/// The binary is the one `BuiltProducts` finds: in `ROTATIOND_BIN_DIR` when set, else beside the test bundle.
public enum Testbed {
    /// The package root, found from this file's path.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The umockdev files and traces the steps name.
    public static let fixtures = root.appendingPathComponent("Tests/fixtures")
    /// The programs a test runs inside the testbed beside rotationd or instead of it (`iio-write.py`,
    /// `iio-events.py`, `sleep-probe.py`), which talk to the emulated kernel through libiio as rotationd does.
    public static let probes = root.appendingPathComponent("Tests/Testbed/probes")
    /// The driver, relative to the package root.
    public static let driverPath = "Tests/Testbed/umockdev-driver.py"
    /// The driver.
    public static var driver: URL { root.appendingPathComponent(driverPath) }
    /// Where the built executables are.
    public static var binDir: String { BuiltProducts.directory }
    /// How many runs this test process has going at once.
    public static let slots = RunSlots.perProcessor()

    /// `steps` as the driver's `--actions` argument.
    public static func actions(_ steps: [Step]) -> String { Step.actions(steps) }

    /// A fresh socket path under /tmp, short enough for a Unix socket, named after `name`.
    public static func socketPath(_ name: String) -> String {
        "/tmp/rotationd-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    /// Runs `program ARGS` (rotationd unless given) with the given devices and steps.
    ///
    /// - Parameters:
    ///   - devices: umockdev files, relative to Tests/fixtures.
    ///   - rules: rules of the emulated kernel (`Tests/Testbed/kernel`) added to the devices' own.
    ///   - user: `USER:GROUP` to run the program as that unprivileged user (the driver's `--user`), or nil for root.
    ///   - environment: variables added to the program's environment (and the driver's). `STATE_DIRECTORY`, where
    ///     the service keeps what it remembers, is a directory of the run's own unless given.
    ///   - program: another program to run instead of rotationd.
    ///
    /// Runs wait for a free slot (`slots`), and the test awaits the run without holding a thread: a test process
    /// runs only as many synchronous tests at once as the machine has cores, and these spend their time waiting
    /// on traces played in real time. A sanitizer report the program wrote is recorded as an issue of the test.
    public static func run(devices: [String], steps: [Step], arguments: [String], rules: [String] = [], user: String? = nil,
                           environment: [String: String] = [:], program: String? = nil) async throws -> Result {
        await slots.acquire()
        defer { slots.release() }
        let binary = try program ?? BuiltProducts.require("rotationd")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-testbed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        let resultsURL = dir.appendingPathComponent("results.jsonl")
        var args = [driver.path]
        for d in devices { args += ["--device", d] }
        for rule in rules { args += ["--rule", rule] }
        if let user { args += ["--user", user] }
        args += ["--results", resultsURL.path]
        args += ["--actions", actions(steps), "--", binary] + arguments
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-wrapper")
        p.arguments = ["/usr/bin/python3"] + args
        let reports = SanitizerReports()
        // Each run remembers only what it does itself, unless the test shares a directory between runs; a program
        // run as another user (`user`) may write there too.
        let stateDir = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o1777])
        let state = ["STATE_DIRECTORY": stateDir.path]
        p.environment = reports.environment(ProcessInfo.processInfo.environment.merging(state) { $1 }.merging(environment) { $1 })
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            p.terminationHandler = { _ in done.resume() }
            do { try p.run() } catch { done.resume(throwing: error) }
        }
        let name = program.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "rotationd"
        for failure in reports.failures(of: "\(name) under umockdev") { Issue.record(Comment(rawValue: failure)) }
        func lines(_ url: URL) throws -> [String] {
            String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let results = Results(data: (try? Data(contentsOf: resultsURL)) ?? Data())
        for line in results.undecoded { Issue.record("a result of the driver that does not decode (Tests/Testbed/results.md): \(line)") }
        return Result(status: p.terminationStatus, results: results, driverOut: try lines(outURL), driverErr: try lines(errURL))
    }

    /// What the run printed and how it ended: the driver's results, typed.
    public struct Result {
        /// The driver's exit status: 0 when every step passed.
        public var status: Int32
        /// What the driver reported (`--results`).
        public var results: Results
        /// The driver's own stdout and stderr, for people: the program's lines, the socket lines and the driver's
        /// transcript.
        public var driverOut: [String]
        public var driverErr: [String]

        public init(status: Int32, results: Results, driverOut: [String], driverErr: [String]) {
            self.status = status
            self.results = results
            self.driverOut = driverOut
            self.driverErr = driverErr
        }

        /// The program's stdout lines.
        public var stdout: [String] { results.output("stdout").map(\.line) }
        /// The program's stderr lines.
        public var stderr: [String] { results.output("stderr").map(\.line) }

        /// The program's writes to emulated sysfs attributes (and the event-descriptor ioctl) and how the kernel
        /// answered each (Tests/Testbed/kernel), in order.
        public var kernelWrites: [KernelWrite] { results.kernelWrites.filter { !$0.neighbour } }
        /// The neighbours' writes (iio-sensor-proxy, a raw poller).
        public var neighbourWrites: [KernelWrite] { results.kernelWrites.filter(\.neighbour) }
        /// The program's raw reads that slept in the emulated driver.
        public var kernelReads: [KernelRead] { results.kernelReads.filter { !$0.neighbour } }
        /// The program's opens of an emulated device node that the kernel refused (the node is held by one open
        /// file at a time).
        public var kernelOpens: [KernelOpen] { results.kernelOpens.filter { !$0.neighbour } }
        /// The neighbours' refused opens.
        public var neighbourOpens: [KernelOpen] { results.kernelOpens.filter(\.neighbour) }
        /// The program's writes the kernel refused.
        public var refusedWrites: [KernelWrite] { kernelWrites.filter(\.refused) }

        /// The program's JSON lines on stdout (the published state events), as decoded JSON objects.
        public var events: [[String: Any]] { stdout.compactMap(Self.object) }

        /// The rotation of each event that has one, in order, with repeats collapsed.
        public var rotations: [Int] {
            var out: [Int] = []
            for e in events {
                if let r = e["rotation"] as? Int, out.last != r { out.append(r) }
            }
            return out
        }

        /// The posture of each event that has one, in order, with repeats collapsed.
        public var postures: [String] {
            var out: [String] = []
            for e in events {
                if let p = e["posture"] as? String, out.last != p { out.append(p) }
            }
            return out
        }

        /// The messages received on the `n`th socket connection (from 1), as decoded JSON objects, in order.
        public func socket(_ n: Int) -> [[String: Any]] { results.socket(n).compactMap { Self.object($0.line) } }

        /// The rotations published on the `n`th socket connection, repeats collapsed.
        public func socketRotations(_ n: Int = 1) -> [Int] {
            var out: [Int] = []
            for m in socket(n) {
                if let rot = m["rotation"] as? Int, out.last != rot { out.append(rot) }
            }
            return out
        }

        /// The `sensor` status of each state on the `n`th socket connection, repeats collapsed.
        public func socketStatuses(_ n: Int = 1) -> [String] {
            var out: [String] = []
            for m in socket(n) where m["type"] as? String == "state" {
                if let s = m["sensor"] as? String, out.last != s { out.append(s) }
            }
            return out
        }

        /// When the played trace's time 0 was on the program's CLOCK_MONOTONIC, s, for what the trace does from
        /// `first` s into it on: the `play` step's start, plus the time the trace was held (`holdUntil`, or a
        /// `hold-play` step). Nil when no trace was played, or when the hold began after `first` (what came after
        /// it was played before the hold, on the earlier time).
        public func traceStart(before first: Double) -> Double? {
            guard let start = results.playStarted?.at else { return nil }
            guard let hold = results.playHolds.first else { return start }
            return hold.atTrace < first ? start + hold.seconds : nil
        }

        /// The longest time the `feed` writer of `node` went without writing a scan, in seconds, if it ran.
        public func longestFeederPause(_ node: String) -> Double? { results.feederPauses[node] }

        /// Whether rotationd gave up the buffer of `node` for polling although its `feed` writer never paused for
        /// as long as the buffer's silence (500 ms). A writer held up that long (a loaded machine) leaves the
        /// buffer truly silent, and polling is then the right answer; `Tolerance.feederPause` leaves room for the
        /// two sides' clocks to see the pause a little differently.
        public func fellBackToPollingUnprompted(_ node: String) -> Bool {
            stderr.contains { $0.contains("polling in_accel") } && (longestFeederPause(node) ?? 0) < Tolerance.feederPause
        }

        /// The failed step and what failed, if a step failed.
        public var failure: DriverFailure? { results.failure }

        /// Everything the driver printed, for test failure messages.
        public var transcript: String { (driverOut + driverErr).joined(separator: "\n") }

        public static func object(_ line: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

extension Testbed.Result {
    /// The first published event with `rotation` after `after` (the program's monotonic s), or nil.
    public func publication(rotation: Int, after: Double) -> [String: Any]? {
        events.first { ($0["t"] as? Double ?? 0) > after && $0["rotation"] as? Int == rotation }
    }

    /// When `rotation` was first published after `after` (the program's monotonic s), or nil.
    public func published(rotation: Int, after: Double) -> Double? {
        publication(rotation: rotation, after: after)?["t"] as? Double
    }
}
