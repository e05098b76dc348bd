import RotationEngine

/// A source of samples that drives an `EngineRunner` from a thread of its own: a replayed trace or a
/// live sensor.
public protocol InputFeed: AnyObject, Sendable {
    /// What `hello` reports as the sensor in use, or nil when there is none yet.
    var sensorDescription: String? { get }
    /// Starts feeding `runner`; every call into it comes from one thread at a time.
    func start(_ runner: EngineRunner)
    /// Stops feeding; returns once no more calls into the runner will be made.
    func stop()
    /// Says, once, that the engine stopped trusting the gyroscope, with what it found and the sample's time: the
    /// runner's `onGyroscopeFinding`.
    func gyroscopeFound(_ finding: GyroscopeFinding, at time: Double)
}
