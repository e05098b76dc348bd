import RotationProtocol

/// Tracks the direction of gravity by integrating the gyroscope, corrected slowly towards the accelerometer.
///
/// A complementary filter in the style of Mahony's: the gyroscope turns the estimate as the device turns,
/// with no lag, and a proportional correction (time constant `fusionTime`) pulls it towards the measured
/// acceleration, so the estimate ignores short linear accelerations (shakes, steps, bumps) that the
/// accelerometer alone would follow. An integral term learns the gyroscope's bias about the two axes the
/// accelerometer can observe, so a drifting gyroscope cannot turn the estimate by itself. The correction fades
/// out as |a| leaves g; the caller decides when the bias may be learned.
struct GyroGravityEstimator: Sendable {
    /// The estimate, in m/s² in the device frame (length g).
    private(set) var gravity: Vector3 = .zero
    /// The learned gyroscope bias, rad/s.
    private(set) var bias: Vector3 = .zero
    /// Whether the estimate has been seeded.
    private(set) var seeded = false

    /// Starts again from an accelerometer-based estimate of gravity; the learned bias is kept.
    mutating func reset(to g: Vector3, magnitude: Double) {
        let length = g.length
        guard length > 0 else { return }
        gravity = g * (magnitude / length)
        seeded = true
    }

    /// The angular velocity with the learned bias removed.
    func corrected(_ w: Vector3) -> Vector3 { w - bias }

    /// Advances the estimate by `dt` seconds with the gyroscope reading `w` (rad/s) and blends in the
    /// accelerometer reading `a`.
    ///
    /// - Parameters:
    ///   - weight: how much to trust `a` as gravity, 0...1 (0 while it is dominated by linear acceleration).
    ///   - proportionalGain: 1 / fusionTime, per second.
    ///   - integralGain: per second squared; 0 disables bias learning for this step.
    mutating func update(acceleration a: Vector3, angularVelocity w: Vector3, dt: Double, magnitude: Double,
                         weight: Double, proportionalGain: Double, integralGain: Double) {
        guard seeded, dt > 0 else { return }
        let inverse = 1 / gravity.length
        let u = gravity * inverse
        var omega = w - bias
        let aLength = a.length
        if weight > 0, aLength > 0 {
            // Rotation that would carry the estimate towards the measurement: m × u.
            let m = a * (1 / aLength)
            let error = m.cross(u)
            omega = omega + error * (proportionalGain * weight)
            if integralGain > 0 { bias = bias - error * (integralGain * weight * dt) }
        }
        // A vector fixed in the world turns the other way in the device frame: du/dt = u × ω, that is a
        // rotation of u about ω by −|ω|·dt. Exact rotation (Rodrigues), with short series for sin and cos,
        // so large steps at low sample rates stay on the sphere.
        let rate = omega.length
        let phi = -rate * dt
        if rate > 0, abs(phi) > 1e-12 {
            let k = omega * (1 / rate)
            let p2 = phi * phi
            let s = phi * (1 - p2 / 6 * (1 - p2 / 20 * (1 - p2 / 42)))
            let c = 1 - p2 / 2 * (1 - p2 / 12 * (1 - p2 / 30))
            let rotated = u * c + k.cross(u) * s + k * (k.dot(u) * (1 - c))
            let length = rotated.length
            gravity = rotated * (magnitude / length)
        } else {
            gravity = u * magnitude
        }
    }

    /// The rate at which the in-plane angle of gravity turns, degrees per second, clockwise positive, for
    /// the angular velocity `w` (bias removed by the caller). Nil when gravity has almost no in-plane part.
    func inPlaneRate(_ w: Vector3) -> Double? {
        let g = gravity
        let inPlane2 = g.x * g.x + g.y * g.y
        guard inPlane2 > 1e-6 * g.dot(g) else { return nil }
        // θ = atan2(g.x, −g.y); with dg/dt = g × ω this gives θ′ = −ω.z + g.z (g.x ω.x + g.y ω.y) / (g.x² + g.y²).
        let radians = -w.z + g.z * (g.x * w.x + g.y * w.y) / inPlane2
        return radians / Angles.radiansPerDegree
    }
}
