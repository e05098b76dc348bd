import Glibc
import RotationSystem

/// A file of the service's own state, in its state directory: read whole and bounded, written by atomic
/// replacement (`AtomicFile`), so that a crash or a power cut at any moment leaves either the old file or the new
/// one.
struct StateFile: Sendable {
    /// Why a read or a write failed: the step, and the error number.
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was being done, such as "write /var/lib/rotationd/camera-memory".
        var operation: String
        /// The error number, or nil for a failure that is not a system call's (a file too large, not a regular
        /// file).
        var errno: Errno?
        /// The reason when there is no error number.
        var reason: String = ""

        /// "operation: reason".
        var description: String { "\(operation): \(errno.map(\.description) ?? reason)" }
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
            let e = Errno.current
            return e == .noSuchFileOrDirectory ? .success(nil) : .failure(Failure(operation: "open \(path)", errno: e))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(Failure(operation: "stat \(path)", errno: .current)) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(Failure(operation: "read \(path)", errno: nil, reason: "not a regular file"))
        }
        guard Int(st.st_size) <= limit else {
            return .failure(Failure(operation: "read \(path)", errno: nil, reason: "\(st.st_size) bytes, more than the \(limit) it may have"))
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit + 1 - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(operation: "read \(path)", errno: .current))
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else {
            return .failure(Failure(operation: "read \(path)", errno: nil, reason: "more than the \(limit) bytes it may have"))
        }
        return .success(Array(bytes.prefix(count)))
    }

    /// Replaces the file with `bytes` atomically (mode 0600, `AtomicFile`), creating the directory (0755) when it
    /// is missing.
    func write(_ bytes: [UInt8]) -> Result<Void, Failure> {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            return .failure(Failure(operation: "create \(directory)", errno: .current))
        }
        do { try AtomicFile.write(bytes, name: name, in: directory, mode: 0o600) } catch {
            return .failure(Failure(operation: error.operation, errno: error.errno))
        }
        return .success(())
    }
}
