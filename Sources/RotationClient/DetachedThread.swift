import Glibc

/// Runs a closure on a new POSIX thread that nobody joins.
public enum DetachedThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; stops the process when no thread can be created, since a
    /// client without its reader thread would wait forever.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let rc = tryStart(body)
        if rc != 0 { fatalError("rotation client: pthread_create failed: \(String(cString: strerror(rc)))") }
    }

    /// Starts `body` on a new detached thread; returns 0, or pthread_create's error number when no thread could be
    /// created (the system is out of threads or memory), for the caller to report.
    public static func tryStart(_ body: @escaping @Sendable () -> Void) -> Int32 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, &attributes, { arg in
            Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
            return nil
        }, box)
        if rc != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return rc
    }
}
