import RotationProtocol

/// Estimates the direction of gravity from the accelerometer alone, with a first-order low-pass filter.
///
/// The filter's weight for each sample follows from the time since the previous one, so its time constant is
/// the same at any sample rate and across jittered or missing samples.
struct AccelerometerGravity: Sendable {
    /// The current estimate, in m/s² in the device frame.
    private(set) var gravity: Vector3 = .zero

    /// Starts again from one reading.
    mutating func reset(to acceleration: Vector3) {
        gravity = acceleration
    }

    /// Blends in a reading taken `dt` (≥ 0) seconds after the previous one.
    ///
    /// A reading at the same instant as the previous one weighs nothing, unless the time constant is 0 (no
    /// smoothing), in which case the estimate is always the latest reading.
    mutating func update(_ acceleration: Vector3, dt: Double, timeConstant: Double) {
        let span = timeConstant + dt
        guard span > 0 else {
            gravity = acceleration
            return
        }
        let alpha = dt / span
        gravity = gravity + (acceleration - gravity) * alpha
    }
}
