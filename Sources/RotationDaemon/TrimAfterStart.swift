import RotationSystem

/// Trims the resident set (`ResidentTrim`) once, when the first capture has run for `delay` seconds, or as
/// soon as the sampling policy first finds the device still: start-up, discovery and the capture's set-up
/// are over by then, and a sensor that watches for motion itself delivers no more samples while still.
///
/// The trim runs on a thread of its own: the first still sample is the one after which the capture
/// changes pace (a buffer reopened at the still frequency, a motion event armed), and a trim reads all of
/// /proc/self/smaps, which on a loaded machine can take longer than `maxGap`; on the sensor thread, the
/// sensor would go unread that long, and the engine would start afresh after the gap.
///
/// `check` is called only on the sensor thread; `take` once that thread has ended. A finished trim costs
/// one comparison per sample.
final class TrimAfterStart: @unchecked Sendable {
    static let delay = 3.0
    private var first: Double?
    private var done = false
    private var thread: SystemThread?

    func check(_ time: Double, still: Bool) {
        guard !done else { return }
        guard let first else {
            self.first = time
            return
        }
        guard still || time - first >= TrimAfterStart.delay else { return }
        done = true
        thread = SystemThread.start {
            let released = ResidentTrim.trim()
            Log.debug("gave back \(released) kB of start-up pages")
        }
    }

    /// The trim's thread, if it has not been taken yet, for the caller to join.
    func take() -> SystemThread? {
        defer { thread = nil }
        return thread
    }
}
