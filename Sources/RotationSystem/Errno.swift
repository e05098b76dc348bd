import Glibc

/// An error number of the C library (`errno`, or the number a call such as `pthread_create` returns), with the
/// system's text for it.
///
/// The one place the text is looked up (`strerror`): every error of rotationd that comes from a system call
/// carries one of these, and prints it through `description`.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as `errno.h` defines it.
    public let rawValue: Int32

    /// The error with number `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now: read it right after the call that failed, before another can change it.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The system's text for the number, such as "No such file or directory".
    public var description: String { String(cString: strerror(rawValue)) }

    /// Whether the system refused for want of a right: EACCES (a file's mode or ACL) or EPERM (a capability, or a
    /// policy such as a sandbox's).
    public var isPermission: Bool { self == .permissionDenied || self == .notPermitted }

    /// EPERM: the operation is not permitted.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// ENOENT: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// EINTR: a signal interrupted the call.
    public static let interrupted = Errno(rawValue: EINTR)
    /// EIO: an input or output error.
    public static let ioError = Errno(rawValue: EIO)
    /// ENXIO: no such device or address.
    public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)
    /// EAGAIN (EWOULDBLOCK): nothing is ready, and the descriptor does not block.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// ENOMEM: out of memory.
    public static let noMemory = Errno(rawValue: ENOMEM)
    /// EACCES: permission denied.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// EBUSY: the device or resource is busy.
    public static let busy = Errno(rawValue: EBUSY)
    /// EEXIST: the file exists.
    public static let exists = Errno(rawValue: EEXIST)
    /// ENODEV: no such device.
    public static let noDevice = Errno(rawValue: ENODEV)
    /// EINVAL: an invalid argument.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// ENFILE: the system has too many open files.
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    /// EMFILE: the process has too many open files.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// ENOTTY: the descriptor does not take this ioctl.
    public static let inappropriateIOCTL = Errno(rawValue: ENOTTY)
    /// EROFS: a read-only file system.
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// EPIPE: the other end of the pipe or socket is closed.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// ENOBUFS: no buffer space available.
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    /// ECONNABORTED: the connection was aborted.
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    /// ECONNRESET: the peer reset the connection.
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    /// ETIMEDOUT: the wait timed out.
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    /// ECONNREFUSED: nobody accepts connections there.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
}
