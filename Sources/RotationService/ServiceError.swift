import RotationSystem

/// Why the service could not set up its socket or its systemd integration.
public enum ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed.
    case system(operation: String, path: String, errno: Errno)
    /// The socket path does not fit a Unix socket address.
    case pathTooLong(String)
    /// The path names an abstract socket (`@name`), which the service does not bind itself.
    case abstractName(String)
    /// Another process is accepting connections on the path.
    case alreadyRunning(String)
    /// Something other than a socket sits at the path.
    case notASocket(String)
    /// LISTEN_FDS was set but passed no usable listening Unix stream socket.
    case activation(String)
    /// The samples group does not exist.
    case unknownGroup(String)
    /// A message the service would send does not fit the protocol's line limit with these cameras.
    case lineTooLong(message: String, bytes: Int, cameras: Int)

    /// One line saying what failed and how to fix it.
    public var description: String {
        switch self {
        case .system(let op, let path, let e):
            var text = "cannot \(op) \(path): \(e)"
            if e.isPermission { text += " (run as root, or choose a --socket path you may write)" }
            if e == .noSuchFileOrDirectory { text += " (create the directory, or choose another --socket path)" }
            return text
        case .pathTooLong(let p):
            return "socket path \(p) is longer than the 107 bytes a Unix socket address holds; choose a shorter --socket path"
        case .abstractName(let p):
            return "--socket \(p) is an abstract socket name; rotationd binds only filesystem paths, so give a path such as /run/rotationd/rotationd.sock (an abstract socket can still be passed in by systemd socket activation)"
        case .alreadyRunning(let p):
            return "another rotationd is already serving on \(p); stop it first, or start this one with a different --socket"
        case .notASocket(let p):
            return "\(p) exists and is not a socket; remove it or choose another --socket path"
        case .activation(let why):
            return "socket activation: \(why); check the ListenStream= line of rotationd.socket"
        case .unknownGroup(let g):
            return "--samples-group \(g): no such group; create it (groupadd \(g)) or name an existing one"
        case .lineTooLong(let message, let bytes, let cameras):
            return "a \(message) line with the \(cameras) configured cameras can take \(bytes) bytes, over the protocol's 4096; configure fewer cameras or shorter camera names"
        }
    }
}
