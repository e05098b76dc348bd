import Glibc

/// Wakes one waiting thread from any other: signals that arrive while nobody waits are remembered (as
/// one), so a wake-up is never lost.
final class WakeSignal: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Wakes the waiter, now or at its next `wait()`.
    func signal() {
        pthread_mutex_lock(mutex)
        pending = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until signalled since the last return.
    func wait() {
        pthread_mutex_lock(mutex)
        while !pending { pthread_cond_wait(condition, mutex) }
        pending = false
        pthread_mutex_unlock(mutex)
    }
}
