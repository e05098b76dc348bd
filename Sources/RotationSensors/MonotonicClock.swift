import Glibc

/// The monotonic clock, in seconds: the time base of every live sample.
public enum MonotonicClock {
    /// Seconds on CLOCK_MONOTONIC.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
