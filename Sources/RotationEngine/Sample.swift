/// One calibrated sensor reading, the engine's only input.
public struct Sample: Sendable, Hashable {
    /// Monotonic time in seconds. Only differences matter; the origin is arbitrary.
    public var time: Double
    /// Proper acceleration in m/s², in the device frame (upright reads about (0, −g, 0)).
    public var acceleration: Vector3
    /// Angular velocity in rad/s in the same frame (right-hand rule), when a gyroscope delivered one.
    public var angularVelocity: Vector3?
    /// Whether the device went unobserved before this reading although no time passed on the monotonic clock:
    /// the system slept (CLOCK_MONOTONIC stops during a suspend). The engine takes it as it takes a gap longer
    /// than `maxGap`: the device may have been turned meanwhile.
    public var followsGap = false

    /// Creates a sample.
    public init(time: Double, acceleration: Vector3, angularVelocity: Vector3? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.angularVelocity = angularVelocity
    }
}
