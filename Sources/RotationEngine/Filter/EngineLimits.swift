import RotationProtocol

/// The configured angles and times turned into the sines, cosines and gains the per-sample tests compare
/// against, computed once so that a sample costs no trigonometry beyond the turn rate's arctangent.
struct EngineLimits: Sendable {
    let sinFlatEnter: Double
    let sinFlatExit: Double
    let sinVertical: Double
    let sinVerticalOuter: Double
    let sinVerticalInner: Double
    let cosKeep: Double
    let proportionalGain: Double
    let integralGain: Double
    let biasRateLimit: Double
    let cosReacquire: Double

    init(_ c: EngineConfiguration) {
        sinFlatEnter = Angles.sinDegrees(c.flatEnterAngle)
        sinFlatExit = Angles.sinDegrees(c.flatExitAngle)
        sinVertical = Angles.sinDegrees(c.verticalLimit)
        sinVerticalOuter = Angles.sinDegrees(c.verticalLimit + c.tiltHysteresis)
        sinVerticalInner = Angles.sinDegrees(c.verticalLimit - c.tiltHysteresis)
        cosKeep = Angles.cosDegrees(45 + c.boundaryHysteresis)
        proportionalGain = c.fusionTime > 0 ? 1 / c.fusionTime : 0
        // With the proportional loop much faster than the integral one, the bias error decays at
        // integralGain / proportionalGain per second; make that 1 / biasTime.
        integralGain = c.biasTime > 0 ? proportionalGain / c.biasTime : 0
        biasRateLimit = c.biasRateLimit * Angles.radiansPerDegree
        // After a gap, a reading within 10° of the last estimate finds the device where it was.
        cosReacquire = Angles.cosDegrees(10)
    }

    /// The tilt class for the elevation's sine `s`; a class the device is already in (`current`) is kept until
    /// the elevation is `tiltHysteresis` past the boundary.
    func tilt(sinElevation s: Double, flat: Bool, current: Tilt?) -> Tilt {
        if flat { return s >= 0 ? .faceUp : .faceDown }
        switch current {
        case .vertical?:
            if s > sinVerticalOuter { return .tiltedUp }
            if s < -sinVerticalOuter { return .tiltedDown }
            return .vertical
        case .tiltedUp?:
            if s >= sinVerticalInner { return .tiltedUp }
            return s < -sinVerticalOuter ? .tiltedDown : .vertical
        case .tiltedDown?:
            if s <= -sinVerticalInner { return .tiltedDown }
            return s > sinVerticalOuter ? .tiltedUp : .vertical
        default:
            if abs(s) <= sinVertical { return .vertical }
            return s > 0 ? .tiltedUp : .tiltedDown
        }
    }
}
