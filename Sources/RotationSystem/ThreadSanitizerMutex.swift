#if SANITIZE_THREAD
import Glibc

/// The lock that stands in for `Synchronization.Mutex` in ThreadSanitizer builds (`-D SANITIZE_THREAD`, which
/// `make test-sanitizers` passes); ordinary builds do not contain it.
///
/// On Linux, `Mutex` waits for a contended lock inside the Synchronization library, which is not instrumented,
/// so ThreadSanitizer misses the ordering the lock gives and reports every access made under it as a race.
/// This one waits in `pthread_mutex_lock`, which ThreadSanitizer understands. Each module that uses `Mutex`
/// names it `Mutex` in those builds (a `typealias` in its `ThreadSanitizerLock.swift`), so the code is the same.
public final class ThreadSanitizerMutex<Value: ~Copyable>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock over `value`.
    public init(_ value: consuming Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` on the value with the lock held.
    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
