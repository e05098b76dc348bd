import Glibc
import Synchronization

/// One-line log messages on standard error, as `rotationd: LEVEL: message`, each with a level, some of them rate
/// limited (`limited`, `once`). Safe to call from any thread.
///
/// Under systemd (when standard error is the stream `JOURNAL_STREAM` names) each line also starts with the syslog
/// priority in angle brackets, which the journal reads as the message's level.
public enum Log {
    /// How important a message is; the level is written after the program name.
    public enum Level: Int, Sendable, Comparable {
        /// Detail for diagnosis: connections, commands, a change of sampling pace; shown with `--verbose`.
        case debug = 7
        /// A normal event worth knowing: start, stop, a sensor being found.
        case info = 6
        /// Something was skipped or fell back to a worse method, and the service carries on.
        case warning = 4
        /// Something does not work and needs the user's action.
        case error = 3

        /// The word written in the line.
        public var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }

        /// Less important levels sort first.
        public static func < (a: Level, b: Level) -> Bool { a.rawValue > b.rawValue }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)
    private static let journal = standardErrorIsJournal()
    private static let lastWritten = Mutex<[String: Double]>([:])

    /// Whether standard error is the journal stream systemd connected: `JOURNAL_STREAM` holds
    /// "device:inode" of that stream, and it counts only when standard error is still that same file
    /// (a child whose stderr was redirected inherits the variable but not the stream).
    static func standardErrorIsJournal() -> Bool {
        guard let raw = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: raw).split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// The least important level written; lower ones are dropped.
    public static var minimumLevel: Level {
        get { Level(rawValue: threshold.load(ordering: .relaxed)) ?? .info }
        set { threshold.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Writes `message` at `level`, as one line; newlines inside it are replaced by spaces.
    public static func write(_ level: Level, _ message: String) {
        guard level >= minimumLevel else { return }
        var line = journal ? "<\(level.rawValue)>" : ""
        line += "rotationd: \(level.name): "
        for c in message.unicodeScalars { line.unicodeScalars.append(c == "\n" || c == "\r" ? " " : c) }
        line += "\n"
        OutputStreamFD.standardError.write(line)
    }

    /// Writes at debug level.
    public static func debug(_ message: @autoclosure () -> String) {
        if Level.debug >= minimumLevel { write(.debug, message()) }
    }
    /// Writes at info level.
    public static func info(_ message: String) { write(.info, message) }
    /// Writes at warning level.
    public static func warning(_ message: String) { write(.warning, message) }
    /// Writes at error level.
    public static func error(_ message: String) { write(.error, message) }

    /// Writes one line unless a line with the same `key` was due less than `interval` seconds ago (a line below
    /// `minimumLevel` counts as due, though it is not written).
    ///
    /// - Returns: whether the line was due.
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
