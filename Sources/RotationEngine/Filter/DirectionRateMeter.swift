import RotationProtocol

/// Measures how fast a direction turns, from successive vectors alone: here, the accelerometer's gravity
/// estimate, as a check on the gyroscope that does not depend on it.
///
/// The per-sample rotation (previous direction × current direction, over the time step) is smoothed as a
/// vector, so noise, which jitters the direction back and forth, largely cancels while a real turn adds up.
struct DirectionRateMeter: Sendable {
    /// The angular speed of the direction, rad/s; infinite until two readings have been compared.
    private(set) var rate: Double = .infinity
    private var smoothed = Vector3.zero
    private var last: Vector3?

    /// Forgets the history.
    mutating func reset() {
        rate = .infinity
        last = nil
    }

    /// Records the direction of `v`, `dt` seconds after the previous reading.
    mutating func update(_ v: Vector3, dt: Double, timeConstant: Double) {
        let length = v.length
        guard length > 0 else { return }
        let u = v * (1 / length)
        if let last, dt > 0 {
            let step = last.cross(u) * (1 / dt)
            smoothed = rate.isFinite ? smoothed + (step - smoothed) * (dt / (timeConstant + dt)) : step
            rate = smoothed.length
        }
        last = u
    }
}
