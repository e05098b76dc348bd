/// Every threshold of the orientation filter, each with a documented default.
///
/// `Docs/algorithm.md` explains why each exists. Angles are in degrees, times in seconds, accelerations in m/s².
public struct EngineConfiguration: Sendable, Hashable {
    /// Standard gravity, the magnitude a device at rest reads.
    public var gravity: Double = 9.80665

    /// Time constant of the low-pass filter that estimates gravity from the accelerometer.
    public var smoothingTime: Double = 0.03

    /// Largest relative departure of |a| from g for a sample still to count as "at rest" (0.25 = ±25 %).
    public var motionTolerance: Double = 0.25
    /// How long after the last out-of-tolerance sample the rotation stays frozen.
    public var motionHoldoff: Double = 0.25

    /// Elevation of gravity out of the screen plane above which the device becomes flat.
    public var flatEnterAngle: Double = 70
    /// Elevation below which a flat device stops being flat. Lower than `flatEnterAngle`: hysteresis.
    public var flatExitAngle: Double = 60
    /// Elevation within which the screen counts as vertical, for the tilt class.
    public var verticalLimit: Double = 20

    /// Degrees past the 45° diagonal the in-plane angle must go before a new quadrant can win.
    public var boundaryHysteresis: Double = 12

    /// How long a new quadrant must be held, uninterrupted, before it is published.
    public var dwellTime: Double = 0.12

    /// A gap between samples longer than this restarts the filter from scratch.
    public var maxGap: Double = 1.0

    /// The filter's defaults.
    public static let `default` = EngineConfiguration()

    /// Creates the default configuration.
    public init() {}
}
