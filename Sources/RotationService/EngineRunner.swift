import RotationEngine

/// The single owner of the engine's state: feeds it samples and publishes each change as a value.
///
/// Not thread-safe by design: the input that feeds it calls it from one thread at a time, and everything
/// downstream receives copies.
public final class EngineRunner: @unchecked Sendable {
    private var engine: OrientationEngine
    private var seq = 0
    private let publisher: Publisher
    /// The latest published event (sequence 0 and `t` NaN before the first change).
    public private(set) var current: StateEvent

    /// Creates a runner; `current` starts as the engine's initial state with the given sensor status.
    public init(engine: OrientationEngine, cameras: [Camera], sensor: SensorStatus, publisher: Publisher) {
        self.engine = engine
        self.publisher = publisher
        self.current = StateEvent(seq: 0, time: .nan, state: engine.state, cameras: cameras, sensor: sensor)
    }

    /// How many changes have been published.
    public var changes: Int { seq }

    /// What 1 g reads on the part, as the engine learned it; read it from the thread that feeds the runner.
    public var learnedGravity: LearnedGravity { engine.learnedGravity }

    /// The thresholds the engine runs with.
    public var configuration: EngineConfiguration { engine.configuration }

    /// Feeds one sample; publishes the new state when the engine's decision changed.
    public func feed(_ sample: Sample) {
        if publisher.wantsSamples { publisher.publish(sample: sample) }
        guard let state = engine.process(sample) else { return }
        seq += 1
        current = StateEvent(seq: seq, time: sample.time, state: state, cameras: current.cameras, sensor: current.sensor)
        publisher.publish(current)
    }

    /// Records a change in sensor status at monotonic time `time`; publishes it when it changed.
    ///
    /// When the sensor comes back (`.ok`) the engine restarts from scratch, since the samples before the gap
    /// say nothing about the device now. `.idle` (sampling stopped because nobody listens) forgets the engine
    /// entirely: a fresh engine with the same configuration, and the state published with it has no rotation,
    /// so a later client never sees a rotation from before the pause as current.
    public func setSensor(_ status: SensorStatus, time: Double) {
        guard status != current.sensor else { return }
        var state = current.state
        switch status {
        case .idle:
            engine = OrientationEngine(configuration: engine.configuration)
            state = engine.state
        case .ok:
            engine.reset()
        case .lost, .none:
            break
        }
        seq += 1
        current = StateEvent(seq: seq, time: time, state: state, cameras: current.cameras, sensor: status)
        publisher.publish(current)
    }
}
