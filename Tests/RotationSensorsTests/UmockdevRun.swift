import Foundation
import Testing
import TestSupport

/// Runs the real `rotationd` inside an umockdev testbed through `Tests/fixtures/umockdev-driver.py`.
///
/// The binary is the one `BuiltProducts` finds: in `ROTATIOND_BIN_DIR` when set, else beside the test bundle.
struct UmockdevRun {
    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/fixtures")
    static var binDir: String { BuiltProducts.directory }
    /// How many runs this test process has going at once.
    static let slots = RunSlots.perProcessor()

    /// What the run printed and how it ended.
    struct Result {
        var status: Int32
        var stdout: [String]
        var stderr: [String]
        /// Every write to an emulated sysfs attribute and how the kernel answered it, as `iio:device0 FILE "VALUE"
        /// ok` or `... EINVAL why` (Tests/Testbed/kernel/iio-kernel.c).
        var kernel: [String] = []
        /// Every raw read that slept in the emulated driver, as `iio:device0 in_accel_y_raw slept 3.6 ms at T`
        /// (T the CLOCK_MONOTONIC time it ended, s).
        var reads: [String] = []
        /// Every open of an emulated device node the kernel refused, as `iio:device0 dev/iio:device0 EBUSY why`
        /// (the node is held by one open file at a time).
        var opens: [String] = []
        /// What each `feed` step's writer reported when the run ended, as `/dev/iio:device0: longest pause between
        /// scans 21 ms`.
        var feeders: [String] = []

        /// The writes the kernel refused.
        var refusedWrites: [String] { kernel.filter { !$0.hasSuffix(" ok") } }

        /// The published state events, as decoded JSON objects.
        var events: [[String: Any]] {
            stdout.compactMap { line in
                guard let data = line.data(using: .utf8) else { return nil }
                return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            }
        }

        /// The rotation of each event that has one, in order, with repeats collapsed.
        var rotations: [Int] {
            var out: [Int] = []
            for e in events {
                if let r = e["rotation"] as? Int, out.last != r { out.append(r) }
            }
            return out
        }

        /// The messages received on the `n`th socket connection (from 1), as decoded JSON objects, in order.
        func socket(_ n: Int) -> [[String: Any]] {
            let prefix = "socket \(n): "
            return stdout.filter { $0.hasPrefix(prefix) }.compactMap { line in
                guard let data = line.dropFirst(prefix.count).data(using: .utf8) else { return nil }
                return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            }
        }

        /// The rotations published on the `n`th socket connection, repeats collapsed.
        func socketRotations(_ n: Int = 1) -> [Int] {
            var out: [Int] = []
            for m in socket(n) {
                if let rot = m["rotation"] as? Int, out.last != rot { out.append(rot) }
            }
            return out
        }

        /// The `sensor` status of each state on the `n`th socket connection, repeats collapsed.
        func socketStatuses(_ n: Int = 1) -> [String] {
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
        func traceStart(before first: Double) -> Double? {
            guard let start = printed("play: started at ") else { return nil }
            // play: held S s at T s into the trace
            guard let line = stderr.first(where: { $0.hasPrefix("play: held ") }) else { return start }
            let words = line.split(separator: " ")
            guard words.count >= 6, let held = Double(words[2]), let at = Double(words[5]), at < first else { return nil }
            return start + held
        }

        /// The number the driver printed on stderr right after `prefix`, in its first such line (a time on the
        /// program's CLOCK_MONOTONIC, or a number of seconds).
        func printed(_ prefix: String) -> Double? {
            stderr.first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count).split(separator: " ")[0]) }
        }

        /// The longest time the `feed` writer of `node` went without writing a scan, in seconds, if it ran.
        func longestFeederPause(_ node: String) -> Double? {
            let prefix = "\(node): longest pause between scans "
            guard let line = feeders.first(where: { $0.hasPrefix(prefix) }) else { return nil }
            return Double(line.dropFirst(prefix.count).prefix { $0.isNumber || $0 == "." }).map { $0 / 1000 }
        }

        /// Whether rotationd gave up the buffer of `node` for polling although its `feed` writer never paused for
        /// as long as the buffer's silence (500 ms). A writer held up that long (a loaded machine) leaves the
        /// buffer truly silent, and polling is then the right answer; 0.4 s leaves room for the two sides' clocks
        /// to see the pause a little differently.
        func fellBackToPollingUnprompted(_ node: String) -> Bool {
            stderr.contains { $0.contains("polling in_accel") } && (longestFeederPause(node) ?? 0) < 0.4
        }

        /// The driver's failure line, if a step failed.
        var failure: String? { stderr.first { $0.hasPrefix("driver:") } }

        /// Everything, for test failure messages.
        var transcript: String {
            (stdout + stderr + kernel.map { "kernel: write " + $0 } + opens.map { "kernel: open " + $0 } + feeders.map { "feed: " + $0 })
                .joined(separator: "\n")
        }
    }

    /// A fresh socket path under /tmp, short enough for a Unix socket, named after `name`.
    static func socketPath(_ name: String) -> String {
        "/tmp/rotationd-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    /// Runs `rotationd ARGS` with the given devices and steps (see the driver's usage text).
    ///
    /// - Parameters:
    ///   - rules: rules of the emulated kernel (`Tests/Testbed/kernel/iio-kernel.c`) added to the devices' own.
    ///   - user: `USER:GROUP` to run rotationd as that unprivileged user (the driver's `--user`), or nil for root.
    ///   - environment: variables added to rotationd's environment (and the driver's).
    ///   - program: another program to run instead of rotationd.
    ///
    /// Runs wait for a free slot (`slots`), and the test awaits the run without holding a thread: a test process
    /// runs only as many synchronous tests at once as the machine has cores, and these spend their time waiting
    /// on traces played in real time.
    static func run(devices: [String], steps: [[Any]], arguments: [String], rules: [String] = [], user: String? = nil,
                    environment: [String: String] = [:], program: String? = nil) async throws -> Result {
        await slots.acquire()
        defer { slots.release() }
        let binary = try program ?? BuiltProducts.require("rotationd")
        let stepsJSON = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        var args = [fixtures.appendingPathComponent("umockdev-driver.py").path]
        for d in devices { args += ["--device", d] }
        for rule in rules { args += ["--rule", rule] }
        if let user { args += ["--user", user] }
        args += ["--actions", stepsJSON, "--", binary] + arguments
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-wrapper")
        p.arguments = ["/usr/bin/python3"] + args
        let reports = SanitizerReports()
        p.environment = reports.environment(ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-umockdev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            p.terminationHandler = { _ in done.resume() }
            do { try p.run() } catch { done.resume(throwing: error) }
        }
        for failure in reports.failures(of: "rotationd under umockdev") { Issue.record(Comment(rawValue: failure)) }
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        func lines(_ d: Data) -> [String] {
            String(decoding: d, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let err = lines(errData)
        let prefix = "kernel: write ", read = "kernel: read ", refused = "kernel: open ", feed = "feed: "
        return Result(status: p.terminationStatus, stdout: lines(outData),
                      stderr: err.filter { line in ![prefix, read, refused, feed].contains { line.hasPrefix($0) } },
                      kernel: err.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) },
                      reads: err.filter { $0.hasPrefix(read) }.map { String($0.dropFirst(read.count)) },
                      opens: err.filter { $0.hasPrefix(refused) }.map { String($0.dropFirst(refused.count)) },
                      feeders: err.filter { $0.hasPrefix(feed) }.map { String($0.dropFirst(feed.count)) })
    }
}
