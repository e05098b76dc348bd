/// What 1 g reads on the accelerometer, as the engine learned it from still readings.
///
/// A correctly scaled sensor reads standard gravity; a sensor whose scale attribute is missing or wrong reads
/// some other value, and `factor(of:)` says by how much.
public struct LearnedGravity: Sendable, Hashable {
    /// The magnitude a still device reads, in the units of the samples (m/s² when the scale is right).
    public var value: Double
    /// Seconds of stillness the value rests on; 0 while it is only the first reading.
    public var stillTime: Double

    /// Creates an estimate.
    public init(value: Double, stillTime: Double) {
        self.value = value
        self.stillTime = stillTime
    }

    /// Seconds of stillness after which the value is taken as what the sensor reads: the engine stays at the full
    /// pace until then (`OrientationEngine.isQuiet`), so a sensor read slowly while still is diagnosed all the same.
    public static let settlingTime = 1.0

    /// Whether at least `seconds` of stillness went into the value.
    public func isSettled(after seconds: Double = LearnedGravity.settlingTime) -> Bool { stillTime >= seconds }

    /// How many times `gravity` the sensor reads for 1 g.
    public func factor(of gravity: Double) -> Double { value / gravity }
}
