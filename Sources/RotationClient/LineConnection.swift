import Glibc
import RotationEngine

/// A blocking connection to the service's socket that reads and writes whole protocol lines.
public final class LineConnection: @unchecked Sendable {
    /// The path connected to.
    public let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`.
    public init(path: String) throws(ClientError) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(path: path, reason: String(cString: strerror(errno))) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            Glibc.close(fd)
            throw ClientError(path: path, reason: "path too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let e = errno
            Glibc.close(fd)
            let reason = e == ENOENT ? "no such socket" : e == ECONNREFUSED ? "connection refused" : String(cString: strerror(e))
            throw ClientError(path: path, reason: reason)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the connection; later reads return nil.
    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// Sends one line (a newline is added).
    public func send(_ line: String) throws(ClientError) {
        var text = line + "\n"
        let ok = text.withUTF8 { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.send(fd, buf.baseAddress! + off, buf.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        if !ok { throw ClientError(path: path, reason: "send failed: \(String(cString: strerror(errno)))") }
    }

    /// The next line without its newline; nil on end of stream, on a line longer than the protocol allows,
    /// or when nothing arrives within `timeout` seconds (nil = wait forever). `shouldStop` is checked
    /// every 200 ms.
    public func readLine(timeout: Double? = nil, shouldStop: () -> Bool = { false }) -> String? {
        var waited = 0.0
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if buffer.count > ClientCommand.maxLineBytes || fd < 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 200)
            if r < 0 && errno != EINTR { return nil }
            if shouldStop() { return nil }
            if r == 0 {
                waited += 0.2
                if let timeout, waited >= timeout { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 8192)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return nil }
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
