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
    /// The umockdev files, traces and helper scripts the steps name.
    public static let fixtures = root.appendingPathComponent("Tests/fixtures")
    /// The driver, relative to the package root.
    public static let driverPath = "Tests/fixtures/umockdev-driver.py"
    /// The driver.
    public static var driver: URL { root.appendingPathComponent(driverPath) }
    /// Where the built executables are.
    public static var binDir: String { BuiltProducts.directory }
    /// How many runs this test process has going at once.
    public static let slots = RunSlots.perProcessor()

    /// The driver's source text, and its modules' (Tests/Testbed/testbed), to learn what it supports.
    static let driverSource: (main: String, modules: String) = {
        let main = (try? String(contentsOf: driver, encoding: .utf8)) ?? ""
        var modules = ""
        let dir = root.appendingPathComponent("Tests/Testbed/testbed")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(".py") {
            modules += (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        return (main, modules)
    }()

    /// Whether the driver plays a trace held by a `play` step's `hold_until` (the code reads that member); else
    /// `Step.actions` spells the hold out with `hold-play` and `release-play`.
    public static var holdUntilSupported: Bool {
        let code = driverSource.main + driverSource.modules
        return ["[\"hold_until\"]", "get(\"hold_until\"", "['hold_until']", "get('hold_until'"].contains { code.contains($0) }
    }

    /// Whether the driver takes `--results PATH` (Tests/Testbed/results.md): its option parser names it; else the
    /// results are read from its transcript on stderr.
    public static var resultsSupported: Bool {
        ["\"--results\"", "'--results'"].contains { (driverSource.main + driverSource.modules).contains($0) }
    }

    /// `steps` as the driver's `--actions` argument.
    public static func actions(_ steps: [Step]) -> String { Step.actions(steps, holdUntilSupported: holdUntilSupported) }

    /// A fresh socket path under /tmp, short enough for a Unix socket, named after `name`.
    public static func socketPath(_ name: String) -> String {
        "/tmp/rotationd-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    /// Runs `program ARGS` (rotationd unless given) with the given devices and steps.
    ///
    /// - Parameters:
    ///   - devices: umockdev files, relative to Tests/fixtures.
    ///   - rules: rules of the emulated kernel (`Tests/Testbed/kernel/iio-kernel.c`) added to the devices' own.
    ///   - user: `USER:GROUP` to run the program as that unprivileged user (the driver's `--user`), or nil for root.
    ///   - environment: variables added to the program's environment (and the driver's).
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
        if resultsSupported { args += ["--results", resultsURL.path] }
        args += ["--actions", actions(steps), "--", binary] + arguments
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-wrapper")
        p.arguments = ["/usr/bin/python3"] + args
        let reports = SanitizerReports()
        p.environment = reports.environment(ProcessInfo.processInfo.environment.merging(environment) { $1 })
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
        let results = resultsSupported ? (try? Data(contentsOf: resultsURL)) : nil
        return Result(status: p.terminationStatus, stdout: try lines(outURL), stderr: try lines(errURL), results: results)
    }

    /// What the run printed and how it ended.
    public struct Result {
        public var status: Int32
        public var stdout: [String]
        public var stderr: [String]
        /// Every write to an emulated sysfs attribute and how the kernel answered it, as `iio:device0 FILE "VALUE"
        /// ok` or `... EINVAL why` (Tests/Testbed/kernel/iio-kernel.c).
        public var kernel: [String] = []
        /// Every raw read that slept in the emulated driver, as `iio:device0 in_accel_y_raw slept 3.6 ms at T`
        /// (T the CLOCK_MONOTONIC time it ended, s).
        public var reads: [String] = []
        /// Every open of an emulated device node the kernel refused, as `iio:device0 dev/iio:device0 EBUSY why`
        /// (the node is held by one open file at a time).
        public var opens: [String] = []
        /// What each `feed` step's writer reported when the run ended, as `/dev/iio:device0: longest pause between
        /// scans 21 ms`.
        public var feeders: [String] = []
        /// The driver's results file (`--results`), when it wrote one.
        public var resultsData: Data?

        /// Sorts the driver's stderr into the program's and the driver's own lines and the kernel's logs.
        public init(status: Int32, stdout: [String], stderr err: [String], results: Data? = nil) {
            let prefix = "kernel: write ", read = "kernel: read ", refused = "kernel: open ", feed = "feed: "
            self.status = status
            self.stdout = stdout
            self.stderr = err.filter { line in ![prefix, read, refused, feed].contains { line.hasPrefix($0) } }
            kernel = err.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            reads = err.filter { $0.hasPrefix(read) }.map { String($0.dropFirst(read.count)) }
            opens = err.filter { $0.hasPrefix(refused) }.map { String($0.dropFirst(refused.count)) }
            feeders = err.filter { $0.hasPrefix(feed) }.map { String($0.dropFirst(feed.count)) }
            resultsData = results
        }

        /// The writes the kernel refused.
        public var refusedWrites: [String] { kernel.filter { !$0.hasSuffix(" ok") } }

        /// The published state events, as decoded JSON objects.
        public var events: [[String: Any]] {
            stdout.compactMap { line in
                guard let data = line.data(using: .utf8) else { return nil }
                return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            }
        }

        /// The rotation of each event that has one, in order, with repeats collapsed.
        public var rotations: [Int] {
            var out: [Int] = []
            for e in events {
                if let r = e["rotation"] as? Int, out.last != r { out.append(r) }
            }
            return out
        }

        /// The messages received on the `n`th socket connection (from 1), as decoded JSON objects, in order.
        public func socket(_ n: Int) -> [[String: Any]] {
            let prefix = "socket \(n): "
            return stdout.filter { $0.hasPrefix(prefix) }.compactMap { line in
                guard let data = line.dropFirst(prefix.count).data(using: .utf8) else { return nil }
                return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            }
        }

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
        /// `first` s into it on: the "play" step's start, plus the time a "hold-play" step held it there. Nil when
        /// no trace was played, or when the hold began after `first` (what came after it was played before the
        /// hold, on the earlier time).
        public func traceStart(before first: Double) -> Double? {
            guard let start = printed("play: started at ") else { return nil }
            // play: held S s at T s into the trace
            guard let line = stderr.first(where: { $0.hasPrefix("play: held ") }) else { return start }
            let words = line.split(separator: " ")
            guard words.count >= 6, let held = Double(words[2]), let at = Double(words[5]), at < first else { return nil }
            return start + held
        }

        /// The number the driver printed on stderr right after `prefix`, in its first such line (a time on the
        /// program's CLOCK_MONOTONIC, or a number of seconds).
        public func printed(_ prefix: String) -> Double? {
            stderr.first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count).split(separator: " ")[0]) }
        }

        /// The longest time the `feed` writer of `node` went without writing a scan, in seconds, if it ran.
        public func longestFeederPause(_ node: String) -> Double? {
            let prefix = "\(node): longest pause between scans "
            guard let line = feeders.first(where: { $0.hasPrefix(prefix) }) else { return nil }
            return Double(line.dropFirst(prefix.count).prefix { $0.isNumber || $0 == "." }).map { $0 / 1000 }
        }

        /// Whether rotationd gave up the buffer of `node` for polling although its `feed` writer never paused for
        /// as long as the buffer's silence (500 ms). A writer held up that long (a loaded machine) leaves the
        /// buffer truly silent, and polling is then the right answer; 0.4 s leaves room for the two sides' clocks
        /// to see the pause a little differently.
        public func fellBackToPollingUnprompted(_ node: String) -> Bool {
            stderr.contains { $0.contains("polling in_accel") } && (longestFeederPause(node) ?? 0) < 0.4
        }

        /// The driver's failure line, if a step failed.
        public var failure: String? { stderr.first { $0.hasPrefix("driver:") } }

        /// Everything, for test failure messages.
        public var transcript: String {
            (stdout + stderr + kernel.map { "kernel: write " + $0 } + opens.map { "kernel: open " + $0 } + feeders.map { "feed: " + $0 })
                .joined(separator: "\n")
        }
    }
}
