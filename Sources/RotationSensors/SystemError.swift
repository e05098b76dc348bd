#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: what was attempted, on which path, the errno, and how to fix it when known.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, such as "open" or "read".
    public var operation: String
    /// The file or device involved.
    public var path: String
    /// The errno value.
    public var errno: Int32

    /// Creates an error from an errno value.
    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// A one-line message naming the path, the failure and a fix where one is known.
    public var description: String {
        let reason = String(cString: strerror(errno))
        var text = "cannot \(operation) \(path): \(reason)"
        switch errno {
        case EACCES, EPERM: text += " (run as root, or install the rotationd udev rule so the iio group may read it)"
        case ENOENT: text += " (check the path)"
        default: break
        }
        return text
    }
}
