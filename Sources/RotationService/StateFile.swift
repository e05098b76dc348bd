import Glibc

/// A file of the service's own state, in its state directory: read whole and bounded, written by atomic
/// replacement (a temporary file written, synced, renamed over the old one, and the directory synced), so that a
/// crash or a power cut at any moment leaves either the old file or the new one.
struct StateFile: Sendable {
    /// Why a read or a write failed: the step, and the errno.
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was being done, such as "write /var/lib/rotationd/camera-memory".
        var operation: String
        /// The errno, or 0 for a failure that is not a system call's (a file too large, not a regular file).
        var errno: Int32
        /// The reason when `errno` is 0.
        var reason: String = ""

        /// "operation: reason".
        var description: String { "\(operation): \(errno == 0 ? reason : String(cString: strerror(errno)))" }
    }

    /// The directory.
    let directory: String
    /// The file's name in it.
    let name: String

    /// The file's path.
    var path: String { directory + "/" + name }

    /// The file's bytes; nil when it does not exist. Fails when it cannot be read, is not a regular file (a
    /// symlink is not followed) or is larger than `limit` bytes.
    func read(limit: Int) -> Result<[UInt8]?, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            let e = errno
            return e == ENOENT ? .success(nil) : .failure(Failure(operation: "open \(path)", errno: e))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(Failure(operation: "stat \(path)", errno: errno)) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(Failure(operation: "read \(path)", errno: 0, reason: "not a regular file"))
        }
        guard Int(st.st_size) <= limit else {
            return .failure(Failure(operation: "read \(path)", errno: 0, reason: "\(st.st_size) bytes, more than the \(limit) it may have"))
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit + 1 - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(operation: "read \(path)", errno: errno))
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else {
            return .failure(Failure(operation: "read \(path)", errno: 0, reason: "more than the \(limit) bytes it may have"))
        }
        return .success(Array(bytes.prefix(count)))
    }

    /// Replaces the file with `bytes` atomically (mode 0600), creating the directory (0755) when it is missing.
    func write(_ bytes: [UInt8]) -> Result<Void, Failure> {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            return .failure(Failure(operation: "create \(directory)", errno: errno))
        }
        let temporary = directory + "/." + name + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .failure(Failure(operation: "create \(temporary)", errno: errno)) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return abandon(fd, temporary, Failure(operation: "write \(temporary)", errno: errno))
            }
            offset += n
        }
        guard fsync(fd) == 0 else { return abandon(fd, temporary, Failure(operation: "sync \(temporary)", errno: errno)) }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = Failure(operation: "rename \(temporary) to \(path)", errno: errno)
            unlink(temporary)
            return .failure(failure)
        }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return .failure(Failure(operation: "open \(directory)", errno: errno)) }
        defer { close(dir) }
        guard fsync(dir) == 0 else { return .failure(Failure(operation: "sync \(directory)", errno: errno)) }
        return .success(())
    }

    private func abandon(_ fd: Int32, _ temporary: String, _ failure: Failure) -> Result<Void, Failure> {
        close(fd)
        unlink(temporary)
        return .failure(failure)
    }
}
