/// A failed system call: what was attempted, on which path, the error number, and how to fix it when the caller
/// knows.
///
/// The fix depends on what the file is (a sysfs attribute, a trace being recorded), so the caller supplies it.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, such as "open" or "read".
    public var operation: String
    /// The file or device involved.
    public var path: String
    /// The error number.
    public var errno: Errno
    /// What the user can do about it, or nil when there is nothing specific to say.
    public var fix: String?

    /// Creates an error from an error number, with the fix that fits this file and this error (or none).
    public init(operation: String, path: String, errno: Errno, fix: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.fix = fix
    }

    /// A one-line message naming the path, the failure and the fix when there is one.
    public var description: String {
        var text = "cannot \(operation) \(path): \(errno)"
        if let fix { text += " (\(fix))" }
        return text
    }
}
