import Glibc

/// Whole-file reads and writes on plain POSIX file descriptors, without Foundation.
public enum TextFile {
    /// Reads a whole file as UTF-8 text; invalid bytes become U+FFFD.
    public static func read(_ path: String) throws(SystemError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(operation: "open", path: path, errno: .current) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "read", path: path, errno: .current)
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
            let e = Errno.current
            throw SystemError(operation: "create", path: path, errno: e,
                              fix: [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(e)
                                  ? "choose a directory you may write to" : nil)
        }
        defer { close(fd) }
        guard OutputStreamFD(fd: fd).write(text) else { throw SystemError(operation: "write", path: path, errno: .current) }
    }
}
