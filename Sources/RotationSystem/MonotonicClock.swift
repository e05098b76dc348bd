import Glibc

/// The system's clocks, in seconds: CLOCK_MONOTONIC, the time base of every live sample and every timestamp the
/// service publishes, and CLOCK_BOOTTIME, which goes on counting while the system is suspended.
public enum MonotonicClock {
    /// Seconds on CLOCK_MONOTONIC, since an arbitrary origin, never going back and stopped while suspended.
    public static func now() -> Double { read(CLOCK_MONOTONIC) }

    /// Seconds on CLOCK_BOOTTIME: CLOCK_MONOTONIC plus the time spent suspended.
    public static func boottime() -> Double { read(CLOCK_BOOTTIME) }

    /// CLOCK_BOOTTIME and CLOCK_MONOTONIC at one moment: CLOCK_BOOTTIME read between two readings of
    /// CLOCK_MONOTONIC, and their middle.
    public static func bootAndMonotonic() -> (boot: Double, monotonic: Double) {
        let before = now()
        let boot = boottime()
        let after = now()
        return (boot, (before + after) / 2)
    }

    /// Seconds the system has spent suspended since boot: CLOCK_BOOTTIME counts them, CLOCK_MONOTONIC does not;
    /// 0 when either cannot be read.
    public static func secondsSuspended() -> Double {
        var boot = timespec(), mono = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_MONOTONIC, &mono) == 0 else { return 0 }
        return Double(boot.tv_sec - mono.tv_sec) + Double(boot.tv_nsec - mono.tv_nsec) * 1e-9
    }

    /// Sleeps for `seconds` (nothing when not positive), on through signals.
    public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }

    private static func read(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
