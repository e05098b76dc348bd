import RotationProtocol

/// The recent states a subscriber received, in order, to answer what the state was at a moment.
///
/// Each state holds from its `t` until the next state's `t`; for a live service `t` is on CLOCK_MONOTONIC,
/// the clock V4L2 stamps frames with, so `state(at:)` tells the state a frame was taken in. The history is
/// bounded to its `capacity` latest states.
///
/// An answer is withheld (nil) rather than guessed: before the first state received, and between two states
/// when changes may have been missed in between (the later state carries `missed`, or came on a new
/// connection). After the latest state the answer is that state; a change whose `t` is already past reaches
/// the client a few tens of milliseconds later, so ask about a moment once it is that far in the past when
/// the answer must be final.
public struct StateHistory: Sendable {
    /// One state received, and whether changes may have been missed just before it.
    public struct Entry: Sendable, Hashable {
        /// The state.
        public var state: StateEvent
        /// True when changes may have been missed between the previous entry and this one.
        public var gapBefore: Bool
    }

    /// The most states kept.
    public let capacity: Int
    /// The states kept, oldest first, with increasing `t`.
    public private(set) var entries: [Entry] = []

    /// An empty history that keeps at most `capacity` (at least 2) states.
    public init(capacity: Int = 256) { self.capacity = max(2, capacity) }

    /// Records a state; `newConnection` says it is the first state on a connection (the greeting after a
    /// reconnection may follow changes this client never saw).
    ///
    /// A state without a time (`t` null) is not recorded. The same state again (a reply to `state`, or the
    /// greeting after a reconnection to the same service before anything changed) is recorded once. A
    /// state earlier than the latest one starts the history again: the service's clock is another one (a
    /// replay restarted, or another trace).
    public mutating func record(_ state: StateEvent, newConnection: Bool = false) {
        guard state.time.isFinite else { return }
        if let last = entries.last {
            if last.state.seq == state.seq && last.state.time == state.time { return }
            if state.time < last.state.time { entries.removeAll() }
        }
        let gap = state.missed > 0 || (newConnection && !entries.isEmpty)
        entries.append(Entry(state: state, gapBefore: gap))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// The state in force at `time` (seconds on the service's clock, CLOCK_MONOTONIC for a live service), or
    /// nil when the history does not tell: before its first state, or in a span where changes may have been
    /// missed.
    public func state(at time: Double) -> StateEvent? {
        guard time.isFinite else { return nil }
        // The last entry with t <= time.
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].state.time <= time { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        if low < entries.count && entries[low].gapBefore { return nil }
        return entries[low - 1].state
    }

    /// Degrees clockwise a frame from the camera answering to `camera` (`StateEvent.camera(matching:)`) taken
    /// at `time` must turn to be upright; nil when the state at that moment is not known, the camera was not
    /// listed then, or the rotation was not known yet.
    public func captureAngle(camera: String, at time: Double) -> Int? {
        state(at: time)?.captureAngle(camera: camera)
    }
}
