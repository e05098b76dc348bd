import RotationProtocol

/// The engine's first stage: which samples it takes, when every stage starts afresh, and whether a reading is
/// motion rather than gravity.
///
/// A sample with a NaN, infinite or zero acceleration, or a time that is not finite or runs backwards, is
/// refused before it touches any state. The first sample, and the first after a gap longer than `maxGap` (or
/// after a sleep, `Sample.followsGap`),
/// restarts every stage. A reading whose magnitude departs from the pose magnitude (`GravityReference`) by
/// more than `motionTolerance` is motion: a shake, a bump. What 1 g reads is learned on the side, from readings
/// the later stages call still (`learn`).
struct SampleGate: Sendable {
    /// One sample the gate let through, with what it found.
    struct Admitted {
        /// The sample's time, s.
        let time: Double
        /// Seconds since the previous sample; meaningless at a restart.
        let dt: Double
        /// The reading, in the sensor's units.
        let acceleration: Vector3
        /// The gyroscope's reading, as the sample carried it.
        let angularVelocity: Vector3?
        /// |a|, in the sensor's units.
        let magnitude: Double
        /// Whether every stage starts afresh from this sample: the first, or the first after a gap.
        let restarted: Bool
        /// Whether |a| is off the pose magnitude: the reading is not gravity alone.
        let moving: Bool
        /// How far the reading can stand for gravity, 0...1 (`GravityReference.trust`).
        let trust: Double
    }

    /// The pose magnitude and the learned 1 g.
    private(set) var reference: GravityReference
    /// Whether a sample has been taken since the engine started or was reset.
    private(set) var started = false
    /// The time of the last sample taken.
    private(set) var lastTime: Double = -.infinity
    /// The time of the last reading that was motion.
    private(set) var lastMotion: Double = -.infinity

    /// Creates a gate whose learned 1 g starts at `gravity`.
    init(gravity: Double) {
        reference = GravityReference(gravity: gravity)
    }

    /// Takes `sample`, or refuses it (nil) when it is unusable or earlier than the last one.
    mutating func admit(_ sample: Sample, _ c: EngineConfiguration) -> Admitted? {
        let a = sample.acceleration
        let t = sample.time
        guard a.isUsable, t.isFinite else { return nil }
        let dt = t - lastTime
        if started && dt < 0 { return nil }
        let magnitude = a.length
        let moving: Bool
        let restarted = !started || dt > c.maxGap || sample.followsGap
        if restarted {
            started = true
            lastMotion = -.infinity
            reference.restart(magnitude: magnitude)
            moving = false
        } else {
            // Judged against the pose magnitude before this reading joins it.
            moving = reference.isMotion(magnitude, tolerance: c.motionTolerance)
            reference.track(magnitude: magnitude, dt: dt, timeConstant: c.levelSmoothingTime, tolerance: c.motionTolerance)
        }
        lastTime = t
        if moving { lastMotion = t }
        return Admitted(time: t, dt: dt, acceleration: a, angularVelocity: sample.angularVelocity, magnitude: magnitude,
                        restarted: restarted, moving: moving,
                        trust: reference.trust(magnitude, tolerance: c.motionTolerance))
    }

    /// Counts `sample` towards what 1 g reads when it is neither shaken nor turning, nor just after either: out
    /// of `motionHoldoff` since the last motion and `settleTime` since the estimate in force last turned fast.
    mutating func learn(from sample: Admitted, lastFast: Double, settleTime: Double, _ c: EngineConfiguration) {
        let t = sample.time
        if !sample.restarted, t - lastMotion >= c.motionHoldoff, t - lastFast >= settleTime {
            reference.learn(magnitude: sample.magnitude, dt: sample.dt, learningTime: c.gravityLearningTime)
        }
    }

    /// Forgets the samples seen: the next one restarts every stage.
    mutating func reset() {
        started = false
        lastMotion = -.infinity
    }
}
