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
    /// The base (keyboard) accelerometer of a convertible at about the same moment, m/s² in the base's frame
    /// (x along the hinge; opened flat, it reads what the display reads); nil when the device has no base sensor,
    /// or it gave no reading for this sample.
    public var base: Vector3?
    /// The angle between the panels in degrees (0 closed, 180 opened flat, 360 folded back) from a hinge
    /// sensor, when one read it.
    public var hinge: Double?
    /// The kernel's tablet-mode switch (`SW_TABLET_MODE`), when the device has one.
    public var tabletMode: Bool?
    /// The kernel's lid switch (`SW_LID`): true while the lid is closed, when the device has one.
    public var lidClosed: Bool?

    /// Creates a sample.
    public init(time: Double, acceleration: Vector3, angularVelocity: Vector3? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.angularVelocity = angularVelocity
    }

    /// Whether the sample carries a reading of a convertible's fold: a base accelerometer, a hinge or a switch.
    public var readsFold: Bool { base != nil || hinge != nil || tabletMode != nil || lidClosed != nil }
}
