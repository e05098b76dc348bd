import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A raw client socket for tests: sends arbitrary bytes and reads lines with deadlines.
final class TestSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var fd: Int32
    private var buffer: [UInt8] = []
    /// True once the service closed the connection.
    private(set) var eof = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let e = errno
            // The class is fully initialised here, so deinit runs after the throw: closing through close()
            // marks the descriptor closed, and deinit must not close its number again (by then another
            // socket of this process may have it).
            close()
            throw Failure(description: "connect \(path): \(String(cString: strerror(e)))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// Sends bytes; false when the service has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var off = 0
        let deadline = Date().addingTimeInterval(Tolerance.reply)
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR {
                    if Date() > deadline { return false }
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 50)
                    continue
                }
                return false
            }
            off += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads what is available without waiting; false on end of stream.
    ///
    /// A reset connection is an end of stream too: a Unix socket closed by the service while it still held
    /// unread input from this client (a flood cut short, say) is reported to the client as ECONNRESET once
    /// the data sent before the close has been read, and how much input was unread depends on timing.
    @discardableResult
    func pump() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { buffer.append(contentsOf: chunk[..<n]); continue }
            if n == 0 { eof = true; return false }
            let e = errno
            if e == EAGAIN || e == EINTR { return true }
            eof = true
            return false
        }
    }

    /// Takes one complete line from what has been read, if any.
    func takeLine() -> String? {
        guard let nl = buffer.firstIndex(of: 0x0A) else { return nil }
        let line = String(decoding: buffer[..<nl], as: UTF8.self)
        buffer.removeSubrange(...nl)
        return line
    }

    /// The next line, waiting up to `timeout` seconds; nil on timeout or end of stream.
    func readLine(timeout: Double = Tolerance.reply) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = takeLine() { return line }
            if eof { return nil }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, Int32(min(left, 0.1) * 1000) + 1)
            pump()
        }
    }

    /// Reads until the service closes the connection or `timeout` passes: the lines read, and whether it closed.
    func drain(timeout: Double) -> (lines: [String], closed: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while true {
            while let line = takeLine() { lines.append(line) }
            if eof { return (lines, true) }
            if Date() >= deadline { return (lines, false) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 50)
            pump()
        }
    }

    /// Reads until the service closes the connection; the remaining lines, or nil when it stays open past `timeout`.
    func readToEnd(timeout: Double = Tolerance.reply) -> [String]? {
        let (lines, closed) = drain(timeout: timeout)
        return closed ? lines : nil
    }
}

/// Small JSON helpers for assertions.
enum JSONLine {
    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
    static func type(_ line: String) -> String? { object(line)?["type"] as? String }
    static func int(_ line: String, _ key: String) -> Int? { object(line)?[key] as? Int }

    /// The line with the number of its `"t"` member taken out, and that number (nil when it is null or absent).
    static func splitTime(_ line: String) -> (String, Double?) {
        guard let key = line.range(of: "\"t\":") else { return (line, nil) }
        let number = line[key.upperBound...].prefix { "-0123456789.eE+".contains($0) }
        return (String(line[..<key.upperBound]) + line[number.endIndex...], Double(number))
    }
}
