import RotationEngine
import RotationProtocol
import Synchronization

/// The single owner of the engine's state: feeds it samples and camera lists, and publishes each change as a
/// value.
///
/// Two inputs drive it from threads of their own, the sensor (samples and its status) and the camera
/// inventory (the camera list). A lock makes each call one step: the engine, the sequence number and the
/// publication of the change happen together, so outputs get changes one at a time and in `seq` order, and
/// everything downstream receives copies.
public final class EngineRunner: @unchecked Sendable {
    private struct Inner: ~Copyable {
        var engine: OrientationEngine
        var policy: SamplingPolicy?
        var seq = 0
        var current: StateEvent
        var findingReported = false
    }

    private let inner: Mutex<Inner>
    private let publisher: Publisher
    private let onGyroscopeFinding: @Sendable (GyroscopeFinding, Double) -> Void

    /// Creates a runner; `current` starts as the engine's initial state with the given cameras (and the camera that
    /// arrived last among them, `arrival`) and sensor status.
    ///
    /// - Parameter policy: decides, from every sample and the engine's state after it, how fast the input
    ///   should be read (`pace`); nil reads every sample at the full rate.
    ///   - onGyroscopeFinding: called once, on the feeding thread, with what the engine found when it stopped
    ///     trusting the gyroscope (`OrientationEngine.gyroscopeFinding`) and the time of the sample.
    public init(engine: OrientationEngine, cameras: [Camera], arrival: CameraArrival? = nil, sensor: SensorStatus,
                publisher: Publisher, policy: SamplingPolicy? = nil,
                onGyroscopeFinding: @escaping @Sendable (GyroscopeFinding, Double) -> Void = { _, _ in }) {
        self.publisher = publisher
        self.onGyroscopeFinding = onGyroscopeFinding
        var current = StateEvent(seq: 0, time: .nan, state: engine.state, cameras: cameras, sensor: sensor, arrival: arrival)
        current.preferred = EngineRunner.systemPreferred(current)
        inner = Mutex(Inner(engine: engine, policy: policy, current: current))
    }

    /// The latest published event (sequence 0 and `t` NaN before the first change).
    public var current: StateEvent { inner.withLock { $0.current } }

    /// How many changes have been published.
    public var changes: Int { inner.withLock { $0.seq } }

    /// What 1 g reads on the sensor, as the engine learned it.
    public var learnedGravity: LearnedGravity { inner.withLock { $0.engine.learnedGravity } }

    /// The thresholds the engine runs with.
    public var configuration: EngineConfiguration { inner.withLock { $0.engine.configuration } }

    /// Feeds one sample; publishes the new state when the engine's decision changed.
    ///
    /// - Parameter publishedAt: the time the sample and a change it causes are published with, when it is not
    ///   the sample's own (a replay served on CLOCK_MONOTONIC); the engine always sees the sample's own.
    /// - Returns: the seconds from this read to the next at the pace the sampling policy now asks for; 0 means
    ///   every sample (always, without a policy).
    @discardableResult
    public func feed(_ sample: Sample, publishedAt: Double? = nil) -> Double {
        inner.withLock { s in
            if publisher.wantsSamples {
                var published = sample
                if let publishedAt { published.time = publishedAt }
                publisher.publish(sample: published)
            }
            let change = s.engine.process(sample)
            s.policy?.update(sample, engineQuiet: s.engine.isQuiet)
            if !s.findingReported, let finding = s.engine.gyroscopeFinding {
                s.findingReported = true
                onGyroscopeFinding(finding, sample.time)
            }
            if let state = change {
                publish(&s, StateEvent(seq: s.seq + 1, time: publishedAt ?? sample.time, state: state, cameras: s.current.cameras,
                                       sensor: s.current.sensor, arrival: s.current.arrival), reason: s.engine.reason)
            }
            return s.policy?.interval ?? 0
        }
    }

    /// Records a change in sensor status at monotonic time `time`; publishes it when it changed.
    ///
    /// When the sensor comes back (`.ok`) the engine restarts from scratch, since the samples before the gap
    /// say nothing about the device now. `.idle` (sampling stopped because nobody listens) forgets the engine
    /// entirely: a fresh engine with the same configuration, and the state published with it has no rotation,
    /// so a later client never sees a rotation from before the pause as current.
    public func setSensor(_ status: SensorStatus, time: Double) {
        inner.withLock { s in
            guard status != s.current.sensor else { return }
            var state = s.current.state
            switch status {
            case .idle:
                s.engine = OrientationEngine(configuration: s.engine.configuration)
                s.findingReported = false
                state = s.engine.state
                s.policy?.reset()
            case .ok:
                s.engine.reset()
                s.policy?.reset()
            case .lost, .none:
                break
            }
            publish(&s, StateEvent(seq: s.seq + 1, time: time, state: state, cameras: s.current.cameras, sensor: status,
                                   arrival: s.current.arrival))
        }
    }

    /// Replaces the camera list, noticed at monotonic time `time`, with `arrival` the camera among them that
    /// arrived last (not infrared); publishes it when either changed. The rotation and everything else stay as
    /// they are: each camera's capture angle follows from them.
    public func setCameras(_ cameras: [Camera], arrival: CameraArrival? = nil, time: Double) {
        inner.withLock { s in
            guard cameras != s.current.cameras || arrival != s.current.arrival else { return }
            publish(&s, StateEvent(seq: s.seq + 1, time: time, state: s.current.state, cameras: cameras,
                                   sensor: s.current.sensor, arrival: arrival))
        }
    }

    /// The camera recommended to a user who has kept no choice: each output that serves users with choices of
    /// their own (the socket server) works it out again for each.
    static func systemPreferred(_ event: StateEvent) -> String? {
        PreferredCamera.pick(cameras: event.cameras, state: event.state, arrival: event.arrival, choice: nil)?.name
    }

    /// Publishes `event`, with the camera recommended to a user with no choice, and the rules behind it when the
    /// engine decided it.
    private func publish(_ s: inout Inner, _ event: StateEvent, reason: ChangeReason? = nil) {
        var event = event
        event.preferred = EngineRunner.systemPreferred(event)
        s.seq = event.seq
        s.current = event
        if let reason { publisher.publish(event, reason: reason) } else { publisher.publish(event) }
    }
}
