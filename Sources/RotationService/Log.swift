import Glibc
import Synchronization

/// One-line log messages on standard error, each with a level.
///
/// Under systemd (when standard error is the stream `JOURNAL_STREAM` names) each line also starts with the syslog priority in angle
/// brackets, which the journal reads as the message's level.
public enum Log {
    /// How important a message is.
    public enum Level: Int, Sendable, Comparable {
        /// Details for tracing a problem: connections and commands.
        case debug = 7
        /// Normal events: start, stop, a client dropped for misbehaving.
        case info = 6
        /// Something is wrong but the service carries on.
        case warning = 4
        /// The service cannot do its job.
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
        line.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(2, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
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
}
