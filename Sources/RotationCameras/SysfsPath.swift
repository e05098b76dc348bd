import Glibc

/// Small reads of sysfs paths: whether one exists, where its links lead, and a file's first line.
enum SysfsPath {
    /// Whether `path` exists, following symbolic links (as `stat()` does).
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// `path` with every symbolic link resolved (`realpath()`), or nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The first line of the file at `path`, without its newline (empty for an empty file), or nil when
    /// it cannot be read.
    static func firstLine(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while bytes.count < 4096 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
            if chunk[..<n].contains(0x0A) { break }
        }
        if let nl = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(nl...) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The last component of `path`.
    static func basename(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }
}
