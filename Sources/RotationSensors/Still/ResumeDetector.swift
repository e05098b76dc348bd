import Glibc
import CWake
import RotationSystem

/// Learns that the system slept and woke, without D-Bus, so that a capture treats its sensor as unknown: the
/// device may have been turned while the system slept, and no motion event, batch or still-pace read says so.
///
/// The proof of a sleep is CLOCK_BOOTTIME − CLOCK_MONOTONIC, which grows by the time slept; it is checked at
/// every wake-up of the sensor thread. What wakes that thread at the resume is a CLOCK_REALTIME timerfd armed
/// with `TFD_TIMER_CANCEL_ON_SET` (`descriptor`, polled beside every wait of a capture): the kernel cancels it on
/// every resume. It is also cancelled whenever the realtime clock is set, by NTP's steps or, in some virtual
/// machines, ten times a second: a cancellation without the clocks drifting apart is no sleep, and the timer is
/// then disarmed, and armed again only at a wake-up of the thread while the sensor is read at the full rate, a
/// second later at first and twice as late after each such cancellation in a row (at most `longestBackOff`).
/// So a clock set often never wakes a still device (its timer stays disarmed until it moves; a sleep is then
/// found at the next read, or safety read, instead), and on a device whose clock is set now and then the timer
/// is armed whenever it matters. Owned by the sensor thread.
final class ResumeDetector {
    /// How much CLOCK_BOOTTIME must run ahead of CLOCK_MONOTONIC between two checks to count as a sleep.
    static let sleepThreshold = 0.2
    /// The longest the timer stays disarmed after cancellations that were no sleep.
    static let longestBackOff = 64.0

    /// The timer's descriptor, to poll beside a capture's own; −1 without one (the clocks are still compared at
    /// every wake-up).
    let descriptor: Int32
    private var slept: Double
    private var armed: Bool
    private var backOff = 1.0
    private var armAt = 0.0

    init() {
        descriptor = rotationd_wake_timer()
        armed = descriptor >= 0
        if descriptor < 0 {
            Log.once(.warning, "\(SystemError(operation: "create", path: "a CLOCK_REALTIME timerfd", errno: .current)): a resume from suspend is noticed at the next reading only")
        }
        slept = MonotonicClock.secondsSuspended()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The seconds slept when the system slept since the last call, or nil. `timerReadable`: whether `poll` found
    /// the timer readable (it is read only then, so a wake-up of the thread costs no system call for it);
    /// `rearm`: whether a timer disarmed after a clock change may be armed again now (the sensor is read at the
    /// full rate).
    func woke(timerReadable: Bool, rearm: Bool) -> Double? {
        let cancelled = timerReadable && armed && rotationd_wake_timer_read(descriptor) == 1
        let now = MonotonicClock.secondsSuspended()
        let grown = now - slept
        slept = now
        if grown > ResumeDetector.sleepThreshold {
            backOff = 1
            arm()
            return grown
        }
        if cancelled {
            // The clock was set, and nobody slept.
            _ = rotationd_wake_timer_disarm(descriptor)
            armed = false
            armAt = MonotonicClock.now() + backOff
            backOff = min(2 * backOff, ResumeDetector.longestBackOff)
        } else if rearm, !armed, descriptor >= 0, MonotonicClock.now() >= armAt {
            arm()
        }
        return nil
    }

    private func arm() {
        guard descriptor >= 0 else { return }
        armed = rotationd_wake_timer_arm(descriptor) == 0
    }
}
