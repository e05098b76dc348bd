import RotationEngine
import RotationProtocol

/// What a picture shows: the samples the engine was fed, in time order, and each change it published, with the
/// rules behind it.
///
/// A value with no I/O: `rotationd --replay --picture` and `rotationd --report` fill it from a replay, a test
/// from samples and states of its own.
public struct PictureRecording: Sendable {
    /// One published change.
    public struct Change: Sendable, Hashable {
        /// The time of the sample that caused it, s, on the samples' clock.
        public var time: Double
        /// The state published.
        public var state: DeviceState
        /// The rules behind it.
        public var reason: ChangeReason

        /// Creates a change.
        public init(time: Double, state: DeviceState, reason: ChangeReason = ChangeReason()) {
            self.time = time
            self.state = state
            self.reason = reason
        }
    }

    /// The first line of the picture: what was recorded, such as a trace's file name.
    public var title: String
    /// A second line under it (the version and the options, say); empty for none.
    public var subtitle: String
    /// The samples, in time order.
    public var samples: [Sample]
    /// The changes published, in time order.
    public var changes: [Change]

    /// Creates a recording.
    public init(title: String, subtitle: String = "", samples: [Sample], changes: [Change]) {
        self.title = title
        self.subtitle = subtitle
        self.samples = samples
        self.changes = changes
    }

    /// The first and last moment shown: the first sample's time, and the last sample's or change's.
    var span: (start: Double, end: Double) {
        let times = [samples.first?.time, samples.last?.time, changes.first?.time, changes.last?.time].compactMap { $0 }
        guard let start = times.min(), let end = times.max() else { return (0, 1) }
        return end > start ? (start, end) : (start, start + 1)
    }
}
