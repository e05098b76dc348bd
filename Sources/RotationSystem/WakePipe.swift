import Glibc

/// A pipe that wakes a thread sleeping in `poll()`: `signal()` makes `descriptor` readable until `drain()`. Both
/// ends are non-blocking and closed on exec.
public final class WakePipe: @unchecked Sendable {
    /// The read end, to poll; −1 when no pipe could be made.
    public let descriptor: Int32
    private let writeEnd: Int32

    /// A new pipe; `descriptor` is −1, and `signal()` does nothing, when none could be made (the process is out of
    /// descriptors).
    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { Descriptor.makeNonBlocking(fd) }
        } else {
            fds = [-1, -1]
        }
        descriptor = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Whether the pipe was made.
    public var isOpen: Bool { descriptor >= 0 }

    /// Makes `descriptor` readable; safe from any thread.
    public func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads what `signal()` wrote, so that `descriptor` is no longer readable.
    public func drain() {
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) > 0 {}
    }

    /// Sleeps in `poll()` until `signal()` is called.
    public func waitForSignal() {
        var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&p, 1, -1) < 0 && errno == EINTR {}
    }
}
