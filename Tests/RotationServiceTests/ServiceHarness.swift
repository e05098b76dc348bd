import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where the package and its built binaries are, for tests that run the real executables.
///
/// The binaries are the ones `BuiltProducts` finds: in `ROTATIOND_BIN_DIR` when set, else beside the test bundle.
enum PackagePaths {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binDir: URL { URL(fileURLWithPath: BuiltProducts.directory) }
    static func binary(_ name: String) -> String { BuiltProducts.path(name) }
}

/// Device poses for synthetic traces, as accelerometer readings in the device frame.
enum Pose {
    static let upright = (0.0, -9.81, 0.0)
    static let leftUp = (9.81, 0.0, 0.0)
    static let bottomUp = (0.0, 9.81, 0.0)
    static let rightUp = (-9.81, 0.0, 0.0)
    static let cycle = [upright, leftUp, bottomUp, rightUp]
}

/// Writes synthetic `t,x,y,z` traces.
enum SyntheticTraces {
    /// Holds `lead` seconds upright, then each pose of `poses` for `hold` seconds, at `rate` Hz.
    static func write(to path: String, lead: Double, poses: [(Double, Double, Double)], hold: Double, rate: Double = 100) throws {
        var text = "t,x,y,z\n"
        var t = 0.0
        func emit(_ p: (Double, Double, Double), _ seconds: Double) {
            let n = Int((seconds * rate).rounded())
            for _ in 0..<n {
                text += String(format: "%.4f,%.3f,%.3f,%.3f\n", t, p.0, p.1, p.2)
                t += 1 / rate
            }
        }
        emit(Pose.upright, lead)
        for p in poses { emit(p, hold) }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// `count` quarter turns around the cycle, after an upright lead.
    static func turns(to path: String, lead: Double, count: Int, hold: Double) throws {
        try write(to: path, lead: lead, poses: (1...count).map { Pose.cycle[$0 % 4] }, hold: hold)
    }
}

/// A `rotationd` serving a trace on a socket in a scratch directory.
final class ServiceRun {
    let child: ChildProcess
    let socket: String

    init(trace: String, socket: String, extra: [String] = [], environment: [String: String] = [:], in dir: ScratchDirectory, tag: String = "rotationd") throws {
        self.socket = socket
        child = try ChildProcess(PackagePaths.binary("rotationd"), ["--replay", trace, "--socket", socket] + extra,
                                 environment: environment, in: dir, tag: tag)
    }

    /// Waits until a client can connect.
    func waitUntilServing(timeout: Double = Tolerance.slowReply) -> Bool {
        ServiceRun.waitUntilAccepting(socket, of: child, timeout: timeout)
    }

    /// Waits until a connection to `socket` succeeds, that is until `child` listens there: the socket file
    /// exists from bind() on, but a connection is refused until listen(). False when `child` exits first.
    static func waitUntilAccepting(_ socket: String, of child: ChildProcess, timeout: Double = Tolerance.slowReply) -> Bool {
        var accepted = false
        _ = Poll.until(timeout: timeout) {
            if let s = try? TestSocket(path: socket) { s.close(); accepted = true }
            return accepted || !child.isRunning
        }
        return accepted
    }

    /// How this served replay's `t` follows from the trace's own time, read from the line the service logs as
    /// the replay starts (nil when it does not come within `timeout` seconds).
    func replayClock(timeout: Double = Tolerance.slowReply) -> ReplayClock? {
        var clock: ReplayClock?
        _ = child.waitUntil(timeout: timeout) {
            clock = ReplayClock(log: child.stderr)
            return clock != nil
        }
        return clock
    }

    /// Runs `rotationd --replay` without serving and returns the JSON lines it prints: the reference.
    static func referenceLines(trace: String, in dir: ScratchDirectory) throws -> [String] {
        let c = try ChildProcess(PackagePaths.binary("rotationd"), ["--replay", trace], in: dir, tag: "reference")
        guard c.wait(timeout: Tolerance.longRun) == 0 else { return [] }
        return c.stdout.split(separator: "\n").map(String.init)
    }
}

/// A served replay's clock: its `t` is the CLOCK_MONOTONIC moment each sample was due, `start + (trace time −
/// origin) / speed`, where a printed replay keeps the trace's time.
struct ReplayClock {
    var start: Double
    var origin: Double
    var speed: Double

    /// Reads the mapping from the service's log line "replaying on CLOCK_MONOTONIC, as a live sensor: t = ...".
    init?(log: String) {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("replaying on CLOCK_MONOTONIC") }),
              let eq = line.range(of: "t = ") else { return nil }
        let formula = line[eq.upperBound...]
        let numbers = formula.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
        if formula.hasPrefix("trace time + "), numbers.count == 1 {
            (start, origin, speed) = (numbers[0], 0, 1)
        } else if numbers.count == 3 {
            (start, origin, speed) = (numbers[0], numbers[1], numbers[2])
        } else {
            return nil
        }
    }

    /// The `t` a sample of the trace at `traceTime` is published with.
    func served(_ traceTime: Double) -> Double { start + (traceTime - origin) / speed }

    /// The trace time of a sample published with `t`.
    func traceTime(_ t: Double) -> Double { origin + (t - start) * speed }

    /// Whether `served` is the printed replay's `printed` line as this clock publishes it: the same text but for
    /// `t`, which is the printed one carried over (to the 0.1 ms the wire gives, and half that lost again
    /// to the speed).
    func matches(_ served: String, _ printed: String) -> Bool {
        let (a, ta) = JSONLine.splitTime(served), (b, tb) = JSONLine.splitTime(printed)
        guard a == b else { return false }
        guard let ta, let tb else { return ta == nil && tb == nil }
        return abs(ta - self.served(tb)) <= 1e-4 * (1 + 1 / speed) + 1e-9
    }
}
