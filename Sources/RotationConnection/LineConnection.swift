import Glibc
import RotationProtocol
import RotationSystem

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
        guard fd >= 0 else { throw ClientError(path: path, reason: Errno.current.description) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close()
            throw ClientError(path: path, reason: "path too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let e = Errno.current
            // deinit runs after a throw from here on: close() marks the descriptor closed, so its number,
            // which the host program may reuse at once, is never closed a second time.
            close()
            let reason = e == .noSuchFileOrDirectory ? "no such socket" : e == .connectionRefused ? "connection refused" : e.description
            throw ClientError(path: path, reason: reason)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Whether the service closed its end: `readLine` returned nil for the end of the stream, not for a timeout.
    public private(set) var ended = false

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
        if !ok { throw ClientError(path: path, reason: "send failed: \(Errno.current)") }
    }

    /// The next line without its newline; nil on end of stream, or when nothing arrives within `timeout`
    /// seconds (nil = wait forever), or once `shouldStop` (checked every 200 ms) returns true.
    ///
    /// Throws when the line is longer than the protocol's `ClientCommand.maxLineBytes`, however the bytes
    /// were split across reads; the connection is then closed, since the rest of that line cannot be
    /// told from the next one.
    public func readLine(timeout: Double? = nil, shouldStop: () -> Bool = { false }) throws(ClientError) -> String? {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        var scanned = 0
        while true {
            if let nl = buffer[scanned...].firstIndex(of: 0x0A) {
                guard nl <= ClientCommand.maxLineBytes else { throw tooLong() }
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            scanned = buffer.count
            if buffer.count > ClientCommand.maxLineBytes { throw tooLong() }
            if fd < 0 { return nil }
            var wait: Int32 = 200
            if let deadline {
                let left = deadline - MonotonicClock.now()
                if left <= 0 { return nil }
                wait = Int32(min(0.2, left) * 1000) + 1
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, wait)
            if r < 0 && errno != EINTR { return nil }
            if shouldStop() { return nil }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 8192)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return nil }
            if n == 0 {
                ended = true
                return nil
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    private func tooLong() -> ClientError {
        close()
        buffer.removeAll()
        return ClientError(path: path, reason: "the service sent a line longer than \(ClientCommand.maxLineBytes) bytes, which protocol \(Hello.currentProtocol) forbids; is this a rotationd socket, and is the client as new as the service?")
    }
}
