import RotationProtocol

/// The gyroscope-fused estimate of gravity, with everything the fused path keeps: the estimate itself
/// (`GyroGravityEstimator`), the check that the gyroscope measures what the accelerometer sees
/// (`GyroscopeCheck`), reacquiring after a gap in the readings, and the turn about the screen's axis since the
/// last change of rotation. `Docs/fusion.md` describes it.
///
/// A sample without a reading shortly after the last one keeps the fused path, so an occasional missing
/// reading does not switch inputs, but it does not turn the estimate by a rate nobody measured: only the
/// accelerometer correction moves it. Without readings for `gyroTimeout`, or once the gyroscope is found
/// wrong, the accelerometer's own estimate is in force instead.
struct FusedEstimate: Sendable {
    /// Time constant with which the measured turn is forgotten, s, so that a bias cannot add up to a turn.
    static let turnMemory = 5.0

    private var fusion = GyroGravityEstimator()
    private(set) var check = GyroscopeCheck()
    /// The accelerometer direction's rate, which gates bias learning.
    private var stillness = DirectionRateMeter()
    private var lastGyro = Vector3.zero
    /// The time of the last reading used.
    private(set) var lastGyroTime: Double = -.infinity
    private var lastSampleHadGyro = false
    /// Whether the estimate follows the accelerometer after a gap that found the device moved.
    private(set) var reacquiring = false
    private var reacquireUntil: Double = -.infinity
    private var handedOver = false
    /// The turn about the screen's axis the gyroscope measured since the last change of rotation, degrees,
    /// clockwise, forgotten with a time constant of `turnMemory`.
    private(set) var turned = 0.0
    /// The rate about the screen's axis at the previous sample, rad/s, for integrating `turned`.
    private var turnRateBefore = 0.0
    /// The accelerometer's own estimate when the rotation last changed.
    private(set) var accelAtChange: Vector3?
    /// Whether the check is to be asked again about the last change's turn (`askAgain`).
    private var askOnceSettled = false

    /// What one sample did.
    struct Step {
        /// Whether the fused estimate is in force for this sample.
        var fused = false
        /// Whether readings resumed after a gap across which the device turned faster than `fusedSettleRate` on
        /// average: it counts as turning now.
        var turnedUnobserved = false
    }

    /// The estimate, m/s² in the device frame; zero until a reading arrives.
    var gravity: Vector3 { fusion.gravity }

    /// The learned gyroscope bias, rad/s.
    var bias: Vector3 { fusion.bias }

    /// The in-plane angle's rate at the last reading, bias removed, degrees per second, clockwise; 0 where
    /// gravity has almost no in-plane part. While readings are missing, the last measured rate stands for the
    /// unknown one, so a turn in progress still counts as turning.
    var inPlaneRate: Double { fusion.inPlaneRate(fusion.corrected(lastGyro)) ?? 0 }

    /// Whether a reading was used within `gyroTimeout` of `t`.
    func readRecently(at t: Double, _ c: EngineConfiguration) -> Bool {
        t - lastGyroTime <= c.gyroTimeout
    }

    /// Starts again after a gap in the samples; the estimate, its bias and the check's findings are kept.
    mutating func restart() {
        stillness.reset()
        lastGyroTime = -.infinity
        reacquireUntil = -.infinity
        reacquiring = false
    }

    /// Whether the gyroscope has been found wrong since the last sample: true once, for the accelerometer-only
    /// path to take over.
    mutating func handsOver() -> Bool {
        guard check.finding != nil, !handedOver else { return false }
        handedOver = true
        return true
    }

    /// Feeds one sample; `accel` is the accelerometer's own estimate, already updated with it.
    mutating func update(_ sample: SampleGate.Admitted, accel: Vector3, _ limits: EngineLimits,
                         _ c: EngineConfiguration) -> Step {
        defer { lastSampleHadGyro = sample.angularVelocity != nil }
        var step = Step()
        var gapTurn: Double?
        let trusted = check.finding == nil
        if trusted, let w = sample.angularVelocity, w.x.isFinite, w.y.isFinite, w.z.isFinite {
            (gapTurn, step.turnedUnobserved) = read(w, sample, accel: accel, limits, c)
            step.fused = check.finding == nil
        } else if trusted && fusion.seeded && sample.time - lastGyroTime <= c.gyroTimeout {
            fusion.update(acceleration: sample.acceleration, angularVelocity: fusion.bias, dt: sample.dt,
                          magnitude: c.gravity, weight: sample.trust, proportionalGain: limits.proportionalGain,
                          integralGain: 0)
            step.fused = true
        }
        if !step.fused { reacquiring = false }
        countTurn(fused: step.fused, dt: sample.dt, gapTurn: gapTurn)
        return step
    }

    /// Takes one gyroscope reading; returns the turn across a gap in the readings as the accelerometer saw it,
    /// and whether it counts as turning now.
    private mutating func read(_ w: Vector3, _ sample: SampleGate.Admitted, accel: Vector3, _ limits: EngineLimits,
                               _ c: EngineConfiguration) -> (Double?, Bool) {
        let t = sample.time
        var resumed: (Double?, Bool) = (nil, false)
        // Only bias learning uses it, so it is tracked on gyroscope samples alone. Across a missing reading it
        // over-states the rate for one sample, which only pauses learning.
        stillness.update(accel, dt: sample.dt, timeConstant: c.rateSmoothingTime)
        if !fusion.seeded {
            fusion.reset(to: accel, magnitude: c.gravity)
        } else if t - lastGyroTime > c.gyroTimeout || reacquiring {
            if t - lastGyroTime > c.gyroTimeout { resumed = resume(sample, accel: accel, limits, c) }
            fusion.reset(to: accel, magnitude: c.gravity)
        } else {
            // The bias is learned while the accelerometer sees the device still, whatever the gyroscope reads: a
            // large bias must not keep itself from being learned.
            let still = stillness.rate < limits.biasRateLimit
            fusion.update(acceleration: sample.acceleration, angularVelocity: w, dt: sample.dt, magnitude: c.gravity,
                          weight: sample.trust, proportionalGain: limits.proportionalGain,
                          integralGain: still ? limits.integralGain : 0)
        }
        // The check integrates the readings themselves, so it starts again after any sample without one.
        if sample.restarted || !lastSampleHadGyro || t - lastGyroTime > c.gyroTimeout { check.restart() }
        check.update(time: t, dt: t - lastGyroTime, accel: accel, steady: !sample.moving, rate: w)
        lastGyro = w
        lastGyroTime = t
        return resumed
    }

    /// A reading after readings stopped for a while (or a slow pace while still): one rate cannot be integrated
    /// across the gap, and the device may have turned, or started shaking, unobserved. A reading that finds the
    /// device where it was starts the estimate again and goes on; one that finds it moved, or moving,
    /// reacquires: until the device has settled again (at least `reacquireTime`, and `motionHoldoff` after the
    /// last reading off the pose magnitude), the estimate is the accelerometer's own, while the gyroscope still
    /// says whether the device turns. Returns the turn across the gap, and whether it was faster than the
    /// settle rate on average, so counts as turning now.
    private mutating func resume(_ sample: SampleGate.Admitted, accel: Vector3, _ limits: EngineLimits,
                                 _ c: EngineConfiguration) -> (Double?, Bool) {
        let t = sample.time
        let before = fusion.gravity
        let turn = TurnRateMeter.turn(from: before, to: accel)
        let cosMoved = before.dot(accel) / (before.length * accel.length)
        guard sample.moving || !(cosMoved >= limits.cosReacquire) else { return (turn, false) }
        reacquiring = true
        reacquireUntil = t + c.reacquireTime
        return (turn, abs(turn) >= c.fusedSettleRate * (t - lastGyroTime))
    }

    /// Counts the turn about the screen's own axis: unlike the in-plane angle's rate, it does not grow as the
    /// device nears flat, where a small tilt swings the in-plane angle a long way. Integrated by the trapezoid.
    /// Across a gap in the readings (the still pace reads far apart) the rate a turn has when it is first seen
    /// says nothing of when it began: the accelerometer's change of direction across the gap counts instead.
    private mutating func countTurn(fused: Bool, dt: Double, gapTurn: Double?) {
        guard fused else {
            turnRateBefore = 0
            return
        }
        let z = fusion.corrected(lastGyro).z
        if dt > 0, dt.isFinite {
            let step = gapTurn ?? -(z + turnRateBefore) / 2 / Angles.radiansPerDegree * dt
            turned = (turned + step) * max(0, 1 - dt / Self.turnMemory)
        }
        turnRateBefore = z
    }

    /// Whether the gyroscope followed the turn that brought the accelerometer to `accel` (`GyroscopeCheck`);
    /// one it did not follow is a finding.
    mutating func followed(at t: Double, accel: Vector3) -> Bool {
        check.followed(time: t, accel: accel)
    }

    /// Ends reacquiring once the device has settled: `reacquireTime` after the gap, out of the motion hold and
    /// `settleTime` since the estimate in force last turned fast.
    mutating func endReacquiring(_ sample: SampleGate.Admitted, heldUntil: Double, lastFast: Double, settleTime: Double) {
        let t = sample.time
        if reacquiring, t >= reacquireUntil, !sample.moving, t >= heldUntil, t - lastFast >= settleTime {
            reacquiring = false
        }
    }

    /// Starts the estimate again from the accelerometer's, which settled in a quadrant this one did not go to;
    /// the gyroscope's part in that turn is judged first.
    mutating func restart(from accel: Vector3, at t: Double, _ c: EngineConfiguration) {
        check.followed(time: t, accel: accel)
        fusion.reset(to: accel, magnitude: c.gravity)
    }

    /// Records a change of rotation: the turn is counted afresh from the accelerometer's estimate `accel`.
    mutating func noteChange(accel: Vector3) {
        turned = 0
        accelAtChange = accel
        askOnceSettled = true
    }

    /// Asks the check again about the turn of the last change, once the accelerometer has settled (`ready`): a
    /// change made as the turn ends (`DecisionRule.turnEnding`) comes before an accelerometer that lags the
    /// gyroscope has seen all of the turn, too early to judge the gyroscope by it, or to confirm it.
    mutating func askAgain(at t: Double, accel: Vector3, ready: Bool) {
        guard askOnceSettled, ready else { return }
        askOnceSettled = false
        check.followed(time: t, accel: accel)
    }
}
