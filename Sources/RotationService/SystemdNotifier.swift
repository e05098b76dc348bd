import Glibc

/// Sends sd_notify messages (READY=1, STATUS=…, WATCHDOG=1, STOPPING=1) to systemd without libsystemd.
///
/// A datagram goes to the socket named by `NOTIFY_SOCKET`; a name starting with `@` is in the abstract
/// namespace.
public struct SystemdNotifier: Sendable {
    /// The notification socket's path or `@`-name.
    public let socketPath: String
    /// How often to send WATCHDOG=1, in seconds (half of `WATCHDOG_USEC`), or nil when no watchdog runs.
    public let watchdogInterval: Double?

    /// Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID; nil when the service is not run by systemd.
    public static func fromEnvironment() -> SystemdNotifier? {
        guard let p = getenv("NOTIFY_SOCKET"), p[0] != 0 else { return nil }
        var interval: Double?
        if let w = getenv("WATCHDOG_USEC"), let usec = Double(String(cString: w)), usec > 0 {
            let pidOK = getenv("WATCHDOG_PID").map { Int32(String(cString: $0)) == getpid() } ?? true
            if pidOK { interval = usec / 2e6 }
        }
        return SystemdNotifier(socketPath: String(cString: p), watchdogInterval: interval)
    }

    /// Creates a notifier for an explicit socket.
    public init(socketPath: String, watchdogInterval: Double? = nil) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
    }

    /// Sends `message` (newline-separated assignments); returns false when it could not be delivered.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let address = UnixAddress(socketPath) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var text = message
        return text.withUTF8 { buf in
            address.withSockaddr { addr, len in
                sendto(fd, buf.baseAddress, buf.count, Int32(MSG_NOSIGNAL), addr, len) == buf.count
            }
        }
    }
}
