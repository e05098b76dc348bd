import Glibc
import RotationSystem

/// The service's listening Unix stream socket: bound by the service itself, or passed in by systemd.
///
/// Only a socket the service bound itself is unlinked on close, and only while the path still names
/// that same socket; a socket systemd created belongs to systemd.
public final class ListeningSocket: @unchecked Sendable {
    /// The listening descriptor, non-blocking and close-on-exec.
    public let fd: Int32
    /// The filesystem path, for messages (may be empty for an unnamed activated socket).
    public let path: String
    /// True when this process created the socket file and so must remove it.
    public let ownsPath: Bool
    /// True when systemd passed the socket in.
    public let activated: Bool
    private let inode: (dev: UInt, ino: UInt)?
    private var closed = false

    private init(fd: Int32, path: String, ownsPath: Bool, activated: Bool, inode: (dev: UInt, ino: UInt)?) {
        self.fd = fd
        self.path = path
        self.ownsPath = ownsPath
        self.activated = activated
        self.inode = inode
    }

    /// Binds and listens on `path` with file mode `mode`.
    ///
    /// A socket file nobody accepts on (left by a crash) is replaced. A socket someone accepts on means
    /// another instance is running: `ServiceError.alreadyRunning`. When the path's directory is missing
    /// and is `/run/rotationd`, it is created with mode 0755.
    public static func bind(path: String, mode: mode_t, backlog: Int32 = 1024) throws(ServiceError) -> ListeningSocket {
        guard !path.hasPrefix("@") else { throw .abstractName(path) }
        guard let address = UnixAddress(path) else { throw .pathTooLong(path) }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let dir = String(path[..<slash])
            if dir == "/run/rotationd", access(dir, F_OK) != 0 {
                if mkdir(dir, 0o755) != 0 && errno != EEXIST { throw .system(operation: "create directory", path: dir, errno: .current) }
            }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "create socket for", path: path, errno: .current) }
        var attempt = 0
        while true {
            let old = umask(0o177)
            let rc = address.withSockaddr { Glibc.bind(fd, $0, $1) }
            let err = Errno.current
            umask(old)
            if rc == 0 { break }
            guard err.rawValue == EADDRINUSE, attempt == 0 else {
                Glibc.close(fd)
                throw .system(operation: "bind", path: path, errno: err)
            }
            attempt += 1
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            guard st.st_mode & S_IFMT == S_IFSOCK else { Glibc.close(fd); throw .notASocket(path) }
            if isAlive(address) { Glibc.close(fd); throw .alreadyRunning(path) }
            Log.info("replacing stale socket \(path) (nobody was listening on it)")
            if unlink(path) != 0 && errno != ENOENT {
                let e = Errno.current
                Glibc.close(fd)
                throw .system(operation: "remove stale socket", path: path, errno: e)
            }
        }
        var st = stat()
        let inode: (UInt, UInt)? = lstat(path, &st) == 0 ? (UInt(st.st_dev), UInt(st.st_ino)) : nil
        if chmod(path, mode) != 0 {
            let e = Errno.current
            Glibc.close(fd)
            unlink(path)
            throw .system(operation: "set the mode of", path: path, errno: e)
        }
        guard listen(fd, backlog) == 0 else {
            let e = Errno.current
            Glibc.close(fd)
            unlink(path)
            throw .system(operation: "listen on", path: path, errno: e)
        }
        return ListeningSocket(fd: fd, path: path, ownsPath: true, activated: false, inode: inode)
    }

    /// Whether a process accepts connections at `address`: a refused connection means a stale file.
    private static func isAlive(_ address: UnixAddress) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { Glibc.close(probe) }
        let rc = address.withSockaddr { connect(probe, $0, $1) }
        if rc == 0 { return true }
        // EAGAIN: the listener's backlog is full, so someone is listening.
        return errno == EAGAIN || errno == EINPROGRESS
    }

    /// The first listening Unix stream socket systemd passed (LISTEN_FDS / LISTEN_PID), or nil when the
    /// process was not socket-activated.
    ///
    /// The LISTEN_* variables are removed so that child processes do not mistake them for their own.
    public static func activated() throws(ServiceError) -> ListeningSocket? {
        let pidText = getenv("LISTEN_PID").map { String(cString: $0) }
        let countText = getenv("LISTEN_FDS").map { String(cString: $0) }
        guard let countText else { return nil }
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText, let pid = Int32(pidText), pid == getpid() else {
            Log.info("ignoring LISTEN_FDS meant for another process (LISTEN_PID \(pidText ?? "unset"))")
            return nil
        }
        guard let count = Int32(countText), count > 0 else { throw .activation("LISTEN_FDS is \"\(countText)\"") }
        let first: Int32 = 3 // SD_LISTEN_FDS_START
        for fd in first..<(first + count) {
            guard isListeningUnixStream(fd) else { continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return ListeningSocket(fd: fd, path: boundPath(fd), ownsPath: false, activated: true, inode: nil)
        }
        throw .activation("none of the \(count) passed descriptors is a listening Unix stream socket")
    }

    private static func isListeningUnixStream(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &len) == 0, value == Int32(SOCK_STREAM.rawValue) else { return false }
        guard getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &value, &len) == 0, value == AF_UNIX else { return false }
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &len) == 0, value != 0 else { return false }
        return true
    }

    private static func boundPath(_ fd: Int32) -> String {
        var addr = sockaddr_un()
        var len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { return "" }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        let n = Int(len) - offset
        guard n > 0 else { return "" }
        return withUnsafeBytes(of: addr.sun_path) { raw in
            var bytes = Array(raw.prefix(n))
            if bytes.first == 0 { bytes[0] = UInt8(ascii: "@"); return String(decoding: bytes, as: UTF8.self) }
            if let z = bytes.firstIndex(of: 0) { bytes = Array(bytes[..<z]) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Stops listening; removes the socket file when this process created it and it is still ours.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        guard ownsPath, let inode else { return }
        var st = stat()
        if lstat(path, &st) == 0, UInt(st.st_dev) == inode.dev, UInt(st.st_ino) == inode.ino {
            unlink(path)
        }
    }
}
