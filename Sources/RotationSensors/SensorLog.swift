import Glibc
import Synchronization

/// One-line log messages on standard error, as `rotationd: LEVEL: message`, with rate limiting.
///
/// A program with a log of its own (the service's, which marks each line's priority for the journal) routes
/// these lines through it with `route(to:)`. Safe to call from any thread.
public enum SensorLog {
    /// How serious a message is; the level is written after the program name.
    public enum Level: String, Sendable {
        /// Something does not work and needs the user's action.
        case error
        /// Something was skipped or fell back to a worse method.
        case warning
        /// A normal event worth knowing, such as a sensor being found.
        case info
        /// Detail for diagnosis, such as a change of sampling pace; the service shows it with `--verbose`.
        case debug
    }

    private static let lastWritten = Mutex<[String: Double]>([:])
    private static let writer = Mutex<(@Sendable (Level, String) -> Void)?>(nil)

    /// Sends every later line to `write` instead of standard error.
    public static func route(to write: @escaping @Sendable (Level, String) -> Void) {
        writer.withLock { $0 = write }
    }

    /// Writes one line.
    public static func write(_ level: Level, _ message: String) {
        if let routed = writer.withLock({ $0 }) {
            routed(level, message)
            return
        }
        var line = "rotationd: \(level.rawValue): "
        for c in message where c != "\n" { line.append(c) }
        OutputStreamFD.standardError.write(line + "\n")
    }

    /// Writes one line unless a line with the same `key` was written less than `interval` seconds ago.
    ///
    /// - Returns: whether the line was written.
    @discardableResult
    public static func limited(_ level: Level, key: String, interval: Double = 1, _ message: @autoclosure () -> String) -> Bool {
        let now = MonotonicClock.now()
        let due = lastWritten.withLock { seen -> Bool in
            if let last = seen[key], now - last < interval { return false }
            seen[key] = now
            return true
        }
        if due { write(level, message()) }
        return due
    }

    /// Writes one line the first time `message` is seen in this process and never again.
    @discardableResult
    public static func once(_ level: Level, _ message: String) -> Bool {
        limited(level, key: "once:" + message, interval: .infinity, message)
    }
}
