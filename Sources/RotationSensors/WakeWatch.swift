import Glibc
import CWake

/// Learns that the system slept and woke, without D-Bus, so that a capture treats its part as unknown: the
/// device may have been turned while the system slept, and no motion event, batch or still-pace read says so.
///
/// Two signals, either enough: a CLOCK_REALTIME timerfd armed with `TFD_TIMER_CANCEL_ON_SET`, which the kernel
/// cancels on every resume (its descriptor, `descriptor`, wakes a capture asleep in `poll`), and
/// CLOCK_BOOTTIME − CLOCK_MONOTONIC, which grows by the time slept (checked at every wake-up, for a kernel or a
/// sandbox where the timer does not fire). The timer is also cancelled when someone sets the clock: a wake
/// found that way costs a spare read at the full rate, nothing more. Owned by the sensor thread.
final class WakeWatch {
    /// How much CLOCK_BOOTTIME must run ahead of CLOCK_MONOTONIC between two checks to count as a sleep.
    static let sleepThreshold = 0.2

    /// The timer's descriptor, to poll beside a capture's own; −1 without one (the clock check still works).
    let descriptor: Int32
    private var slept: Double

    init() {
        descriptor = rotationd_wake_timer()
        if descriptor < 0 {
            SensorLog.once(.warning, "\(SystemError(operation: "create", path: "a CLOCK_REALTIME timerfd", errno: errno)): a resume from suspend is noticed at the next reading only")
        }
        slept = rotationd_seconds_slept()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The seconds slept when the system woke since the last call (0 when only the clock was set), or nil;
    /// re-arms the timer.
    func woke() -> Double? {
        var cancelled = false
        if descriptor >= 0, rotationd_wake_timer_read(descriptor) == 1 {
            cancelled = true
            _ = rotationd_wake_timer_arm(descriptor)
        }
        let now = rotationd_seconds_slept()
        let grown = now - slept
        slept = now
        return cancelled || grown > WakeWatch.sleepThreshold ? max(0, grown) : nil
    }
}
