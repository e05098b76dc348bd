/// Which samples of a recorded trace a replay reads, as a live capture at the sampling policy's pace would: every
/// sample while the policy asks for the full rate, and at its slow interval otherwise, the reads keeping their
/// rhythm (as a poller's do) unless the trace itself paused longer.
public struct ReplayPace: Sendable {
    /// When the next read is due; −∞ while every sample is read.
    private var due = -Double.infinity
    /// The time of the sample before.
    private var previous = -Double.infinity

    /// A pace that reads the first sample.
    public init() {}

    /// Whether the sample at `time` is read: it is due, give or take half the step from the sample before (a
    /// trace's timestamps jitter).
    public mutating func reads(_ time: Double) -> Bool {
        let slack = time > previous ? (time - previous) / 2 : 0
        previous = time
        return time >= due - slack
    }

    /// Records that the sample at `time` was read and that the policy now asks for `interval` seconds between
    /// reads; 0 reads every sample.
    public mutating func read(at time: Double, interval: Double) {
        if interval <= 0 {
            due = -.infinity
        } else {
            due = due.isFinite && due + interval > time ? due + interval : time + interval
        }
    }
}
