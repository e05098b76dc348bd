import RotationEngine

/// The single owner of the engine's state: feeds it samples and publishes each change as a value.
///
/// Not thread-safe by design: the input that feeds it calls it from one thread at a time, and everything
/// downstream receives copies.
public final class EngineRunner: @unchecked Sendable {
    private var engine: OrientationEngine
    private var policy: SamplingPolicy?
    private var seq = 0
    private let publisher: Publisher
    /// The latest published event (sequence 0 and `t` NaN before the first change).
    public private(set) var current: StateEvent

    /// Creates a runner; `current` starts as the engine's initial state with the given sensor status.
    ///
    /// - Parameter policy: decides, from every sample and the engine's state after it, how fast the input
    ///   should be read (`pace`); nil reads every sample at the full rate.
    public init(engine: OrientationEngine, cameras: [Camera], sensor: SensorStatus, publisher: Publisher,
                policy: SamplingPolicy? = nil) {
        self.engine = engine
        self.policy = policy
        self.publisher = publisher
        self.current = StateEvent(seq: 0, time: .nan, state: engine.state, cameras: cameras, sensor: sensor)
    }

    /// How many changes have been published.
    public var changes: Int { seq }

    /// How fast the input should be read from now on; always `.full` without a policy. Read it from the thread
    /// that feeds the runner.
    public var pace: SamplingPolicy.Pace { policy?.pace ?? .full }

    /// Seconds from one read to the next at the current pace; 0 means every sample.
    public var readInterval: Double { policy?.interval ?? 0 }

    /// What 1 g reads on the part, as the engine learned it; read it from the thread that feeds the runner.
    public var learnedGravity: LearnedGravity { engine.learnedGravity }

    /// The thresholds the engine runs with.
    public var configuration: EngineConfiguration { engine.configuration }

    /// Feeds one sample; publishes the new state when the engine's decision changed.
    public func feed(_ sample: Sample) {
        if publisher.wantsSamples { publisher.publish(sample: sample) }
        let change = engine.process(sample)
        policy?.update(sample, engineQuiet: engine.isQuiet)
        guard let state = change else { return }
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
            policy?.reset()
        case .ok:
            engine.reset()
            policy?.reset()
        case .lost, .none:
            break
        }
        seq += 1
        current = StateEvent(seq: seq, time: time, state: state, cameras: current.cameras, sensor: status)
        publisher.publish(current)
    }
}
