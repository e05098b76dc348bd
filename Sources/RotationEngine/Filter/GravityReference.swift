/// Learns what the accelerometer reads at rest, so the motion test never depends on the sensor's absolute scale.
///
/// Two magnitudes are tracked, both in the sensor's own units:
/// - `level`, the magnitude of the current pose: a fast low-pass filter of |a| whose step per sample is
///   clipped to the motion tolerance, so a spike cannot drag it, yet a new pose whose |a| differs (an
///   uncalibrated sensor reads more in some poses than in others) is reached within a few time constants.
///   A reading is motion when its magnitude departs from `level` by more than the tolerance: a shake, a bump.
/// - `oneG`, what 1 g reads on this sensor: the mean of |a| over the samples judged still, a running mean for
///   the first `learningTime` seconds of stillness and a moving one after that, so it settles within the
///   first still second and then drifts only as slowly as a sensor's scale can.
///
/// Every test is relative, so a reading scaled by any factor gives the same decisions.
struct GravityReference: Sendable {
    /// The magnitude of the current pose, in the sensor's units; 0 before the first reading.
    private(set) var level: Double = 0
    /// What 1 g reads on this sensor: the configured gravity until the first reading, then learned.
    private(set) var oneG: Double
    /// Seconds of stillness the learned 1 g rests on.
    private(set) var stillTime: Double = 0

    /// Starts from the configured gravity, which the first reading replaces.
    init(gravity: Double) {
        oneG = gravity
    }

    /// Starts the pose magnitude afresh from one reading; the learned 1 g is kept unless nothing is learned yet.
    mutating func restart(magnitude: Double) {
        level = magnitude
        if stillTime == 0 { oneG = magnitude }
    }

    /// Blends a reading taken `dt` seconds after the previous one into the pose magnitude.
    mutating func track(magnitude: Double, dt: Double, timeConstant: Double, tolerance: Double) {
        let span = timeConstant + dt
        guard span > 0 else {
            level = magnitude
            return
        }
        let limit = tolerance * level
        let step = min(max(magnitude - level, -limit), limit)
        level += step * (dt / span)
    }

    /// Whether `magnitude` departs from the pose magnitude by more than `tolerance` of it.
    func isMotion(_ magnitude: Double, tolerance: Double) -> Bool {
        abs(magnitude - level) > tolerance * level
    }

    /// How far a reading of `magnitude` can be trusted as gravity: 1 at the pose magnitude, falling linearly
    /// to 0 at `tolerance` of it.
    func trust(_ magnitude: Double, tolerance: Double) -> Double {
        guard tolerance > 0, level > 0 else { return 0 }
        let off = abs(magnitude - level) / (tolerance * level)
        return off >= 1 ? 0 : 1 - off
    }

    /// Counts `dt` seconds of stillness with `magnitude` towards the learned 1 g.
    mutating func learn(magnitude: Double, dt: Double, learningTime: Double) {
        guard dt > 0 else { return }
        stillTime += dt
        oneG += (magnitude - oneG) * (dt / max(min(stillTime, learningTime), dt))
    }
}
