import Glibc

/// What the service does to the file descriptors it polls.
public enum Descriptor {
    /// Makes `fd` non-blocking and closed on exec: a descriptor that `poll()` watches never blocks the thread that
    /// reads it, and no program the service starts inherits it.
    public static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
}
