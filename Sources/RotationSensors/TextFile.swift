import Glibc

/// Whole-file reads and line-buffered writes on plain POSIX file descriptors, without Foundation.
public enum TextFile {
    /// Reads a whole file as UTF-8 text; invalid bytes become U+FFFD.
    public static func read(_ path: String) throws(SystemError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "read", path: path, errno: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` as the whole of the file `path`, created (mode 0644) or truncated.
    public static func write(_ text: String, to path: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = errno
            throw SystemError(operation: "create", path: path, errno: e,
                              fix: e == EACCES || e == EPERM || e == EROFS ? "choose a directory you may write to" : nil)
        }
        defer { close(fd) }
        guard OutputStreamFD(fd: fd).write(text) else { throw SystemError(operation: "write", path: path, errno: errno) }
    }
}

/// Writes text to a file descriptor, retrying short writes and EINTR.
public struct OutputStreamFD: Sendable {
    /// The file descriptor written to.
    public let fd: Int32

    /// Standard output.
    public static let standardOutput = OutputStreamFD(fd: 1)
    /// Standard error.
    public static let standardError = OutputStreamFD(fd: 2)

    /// Wraps a descriptor the caller owns.
    public init(fd: Int32) { self.fd = fd }

    /// Writes all of `text`; returns false if the descriptor failed (for example a closed pipe).
    @discardableResult
    public func write(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                off += n
            }
            return true
        }
    }
}
