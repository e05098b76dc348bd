/// Why the engine stopped trusting the gyroscope: what it read against what the accelerometer saw.
///
/// Found by comparing the two (`Docs/fusion.md`, "A gyroscope is checked before it is trusted"); from then on
/// rotations are decided from the accelerometer alone.
public enum GyroscopeFinding: Sendable, Hashable {
    /// It read this rate, degrees per second of gravity's direction, while the accelerometer saw the device
    /// still.
    case rateWhileStill(degreesPerSecond: Double)
    /// Over `windowSeconds`, it carried gravity's direction `gyroDegrees` while the accelerometer saw it turn
    /// `accelDegrees` (elsewhere, when the two are close).
    case turnNotFollowed(gyroDegrees: Double, accelDegrees: Double, windowSeconds: Double)

    /// About how many times the device's turn the gyroscope read, when a turn gives a factor.
    public var factor: Double? {
        guard case .turnNotFollowed(let gyro, let accel, _) = self, accel > 0 else { return nil }
        return gyro / accel
    }

    /// What it read, as a phrase: "reads 2350 °/s while the accelerometer sees the device still".
    public var description: String {
        switch self {
        case .rateWhileStill(let rate):
            return "reads \(GyroscopeFinding.round(rate)) °/s while the accelerometer sees the device still"
        case .turnNotFollowed(let gyro, let accel, let window):
            let ms = Int((window * 1000).rounded())
            if abs(gyro - accel) < 0.5 * accel {
                return "turned gravity \(GyroscopeFinding.round(gyro))° in \(ms) ms, elsewhere than the \(GyroscopeFinding.round(accel))° the accelerometer saw"
            }
            return "turned gravity \(GyroscopeFinding.round(gyro))° in \(ms) ms while the accelerometer saw the device turn \(GyroscopeFinding.round(accel))°"
        }
    }

    private static func round(_ v: Double) -> String {
        v >= 10 ? String(Int(v.rounded())) : String((v * 10).rounded() / 10)
    }
}
