import Glibc

/// A joinable POSIX thread running one closure.
public final class ServiceThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var joined = false

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { arg in
            let b = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            b.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the closure to return. Call at most once, from another thread.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
