#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import RotationEngine

/// Plays a recorded trace through an engine, as fast as possible or paced by the trace's own timestamps.
public struct TraceReplay: Sendable {
    /// The samples, in file order.
    public let samples: [Sample]

    /// Reads and validates a whole trace file before anything is played.
    ///
    /// - Throws: `ReplayError` naming the file, and the line and problem when the content is malformed.
    public init(path: String) throws(ReplayError) {
        let text: String
        do { text = try TextFile.read(path) } catch { throw ReplayError.unreadable(error) }
        do { samples = try TraceFormat.parse(text) } catch { throw ReplayError.malformed(path: path, error) }
    }

    /// Wraps samples already in memory.
    public init(samples: [Sample]) { self.samples = samples }

    /// Feeds every sample to `engine` and calls `emit` with each published change.
    ///
    /// - Parameters:
    ///   - ignoreGyro: drop the angular velocity, so the engine runs on the accelerometer alone.
    ///   - realtime: sleep so samples arrive as far apart as their timestamps say.
    public func run(engine: inout OrientationEngine, ignoreGyro: Bool = false, realtime: Bool = false,
                    emit: (Sample, DeviceState) -> Void) {
        let start = MonotonicClock.now()
        let origin = samples.first?.time ?? 0
        for var s in samples {
            if ignoreGyro { s.angularVelocity = nil }
            if realtime { MonotonicClock.sleep(until: start + (s.time - origin)) }
            if let change = engine.process(s) { emit(s, change) }
        }
    }
}

/// Why a replay could not start.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(SystemError)
    /// The file's content is not a valid trace.
    case malformed(path: String, TraceError)

    /// One line naming the file, the line and the fix.
    public var description: String {
        switch self {
        case .unreadable(let e): return "replay: \(e)"
        case .malformed(let path, let e):
            return "replay: \(path): \(e); a trace is a header \"t,x,y,z\" or \"t,x,y,z,gx,gy,gz\" then one sample per line"
        }
    }
}

/// The monotonic clock, in seconds.
public enum MonotonicClock {
    /// Seconds on CLOCK_MONOTONIC.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Sleeps until the monotonic clock reads `deadline`; returns at once if it already has.
    public static func sleep(until deadline: Double) {
        while true {
            let left = deadline - now()
            if left <= 0 { return }
            var ts = timespec(tv_sec: Int(left), tv_nsec: Int((left - Double(Int(left))) * 1e9))
            _ = nanosleep(&ts, nil)
        }
    }
}
