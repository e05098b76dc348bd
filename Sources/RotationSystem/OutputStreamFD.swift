import Glibc

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

    /// Writes all of `text`; returns false if the descriptor failed (for example a closed pipe), with `errno` set.
    @discardableResult
    public func write(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `bytes`; returns false if the descriptor failed, with `errno` set.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            off += n
        }
        return true
    }
}
