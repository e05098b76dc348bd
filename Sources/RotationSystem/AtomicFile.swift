import Glibc

/// Replaces a file atomically: a temporary file beside it (`.NAME.new`) written, given its mode and synced, renamed
/// over the file, and the directory synced, so that a crash or a power cut at any moment leaves either the old file
/// or the new one.
public enum AtomicFile {
    /// The step that failed, the file it was done to, and the error number.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// One step of the replacement, in order.
        public enum Step: Sendable, Hashable {
            /// Creating the temporary file.
            case create
            /// Writing it (and giving it its mode).
            case write
            /// Syncing it.
            case sync
            /// Renaming it over the file.
            case rename
            /// Opening the directory, to sync it.
            case openDirectory
            /// Syncing the directory: the file is in place, but a power cut may still lose the rename.
            case syncDirectory
        }

        /// The step.
        public var step: Step
        /// The temporary file, or the directory for the directory's steps.
        public var path: String
        /// The file being replaced.
        public var target: String
        /// The error number.
        public var errno: Errno

        /// The step as it would be said, such as "sync /var/lib/rotationd/.camera-memory.new".
        public var operation: String {
            switch step {
            case .create: return "create \(path)"
            case .write: return "write \(path)"
            case .sync, .syncDirectory: return "sync \(path)"
            case .rename: return "rename \(path) to \(target)"
            case .openDirectory: return "open \(path)"
            }
        }

        /// "operation: reason".
        public var description: String { "\(operation): \(errno)" }
    }

    /// The temporary file written before it replaces `name` in `directory`.
    public static func temporary(directory: String, name: String) -> String { directory + "/." + name + ".new" }

    /// Replaces `name` in `directory` (which must exist) with `bytes`, with permissions `mode`. A symbolic link in
    /// the temporary file's place is not followed. The temporary file is removed when a step before the rename
    /// fails.
    public static func write(_ bytes: [UInt8], name: String, in directory: String, mode: mode_t) throws(Failure) {
        let temporary = Self.temporary(directory: directory, name: name), target = directory + "/" + name
        func failure(_ step: Failure.Step, _ path: String) -> Failure {
            Failure(step: step, path: path, target: target, errno: .current)
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure(.create, temporary) }
        // A step that fails before the rename leaves no temporary file behind.
        func abandon(_ step: Failure.Step) -> Failure {
            let f = failure(step, temporary)
            close(fd)
            unlink(temporary)
            return f
        }
        let written = bytes.withUnsafeBytes { OutputStreamFD(fd: fd).write($0) } && fchmod(fd, mode) == 0
        if !written { throw abandon(.write) }
        guard fsync(fd) == 0 else { throw abandon(.sync) }
        close(fd)
        guard rename(temporary, target) == 0 else {
            let f = failure(.rename, temporary)
            unlink(temporary)
            throw f
        }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { throw failure(.openDirectory, directory) }
        defer { close(dir) }
        guard fsync(dir) == 0 else { throw failure(.syncDirectory, directory) }
    }
}
