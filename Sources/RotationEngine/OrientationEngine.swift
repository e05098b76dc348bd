import RotationProtocol

/// Turns calibrated samples into a device rotation, a tilt class and a flat flag.
///
/// The engine is a value with no I/O and no clock of its own: replay, live input and tests drive the same
/// code by calling `process(_:)` with samples in time order. `Docs/algorithm.md` describes the stages and the
/// rules, `Docs/fusion.md` the gyroscope's part.
///
/// Each sample goes through these stages, each a type of its own:
/// 1. `SampleGate`: bad samples (a NaN, infinite or zero acceleration, a time that is not finite or runs
///    backwards) are dropped; a gap longer than `maxGap` restarts every stage; a reading whose |a| is far from
///    the pose magnitude, what the sensor reads at rest in this pose, is motion (shaking, a bump). No test
///    compares a reading with 9.81 m/s², so a sensor with a missing or wrong scale gives the same decisions as a
///    correct one; what 1 g reads is learned on the side.
/// 2. Two estimates of gravity, each with its own state: `AccelerometerEstimate`, a low-pass filter, and,
///    when samples carry angular velocity, `FusedEstimate`, driven by the gyroscope and corrected towards the
///    accelerometer, in force while readings keep arriving and the gyroscope is not found wrong.
/// 3. `Decision`: the turn rate of the estimate in force says whether the device has settled; the elevation
///    of gravity out of the screen plane gives the flat flag and the tilt class; its in-plane direction
///    proposes a quadrant, published once it passes the named rules of `DecisionRule`, in order.
public struct OrientationEngine: Sendable {
    /// The thresholds in force.
    public let configuration: EngineConfiguration
    /// The state last published.
    public private(set) var state: DeviceState = .initial
    /// Why the state last published changed: the rule behind each part that changed. Recorded on the side;
    /// no decision reads it.
    public private(set) var reason = ChangeReason()

    private let limits: EngineLimits
    private var gate: SampleGate
    private var accel = AccelerometerEstimate()
    private var gyro = FusedEstimate()
    private var decision: Decision
    private var posture = PostureEstimate()
    /// What changed the flat flag at the latest sample decided, if it changed.
    private var flatRule: FlatRule?

    /// Creates an engine with the given thresholds.
    public init(configuration: EngineConfiguration = .default) {
        self.configuration = configuration
        limits = EngineLimits(configuration)
        gate = SampleGate(gravity: configuration.gravity)
        decision = Decision(configuration: configuration, limits: limits)
    }

    /// Feeds one sample; returns the new state when the published state changed, else nil.
    ///
    /// A sample with a NaN, infinite or zero acceleration, or a time that is not finite or runs backwards,
    /// is ignored and changes nothing. A convertible's fold (`PostureEstimate`) follows every sample that
    /// carries one of its readings, beside the rotation.
    public mutating func process(_ sample: Sample) -> DeviceState? {
        var changed = false
        let before = state, publishedBefore = decision.published
        if let next = orient(sample) { changed = publish(next) }
        if sample.readsFold || posture.hasSource {
            let fold = posture.update(sample)
            if fold != state.fold {
                state.fold = fold
                changed = true
            }
        }
        guard changed else { return nil }
        reason = ChangeReason(rotation: state.rotation != before.rotation ? decision.rotationReason : nil,
                              flat: state.flat != before.flat ? flatRule : nil,
                              inputs: publishedBefore && state.inputs != before.inputs ? .inputsHold : nil,
                              posture: state.fold.posture != before.fold.posture ? posture.reason : nil)
        return state
    }

    /// The display's state after `sample`, or nil when the sample decides nothing.
    private mutating func orient(_ sample: Sample) -> DeviceState? {
        guard let s = gate.admit(sample, configuration) else { return nil }
        begin(s)
        let fused = estimate(s)
        guard decision.motionHold(s, accelerometerDecides: !fused, reacquiring: gyro.reacquiring) else { return nil }
        var m = Decision.Moment(time: s.time, dt: s.dt, moving: s.moving, fused: fused, estimate: fused ? gyro.gravity : accel.gravity,
                                accel: accel.gravity, accelReady: accel.isReady(at: s.time, configuration),
                                accelRate: accel.meter.rate, accelPreviousRate: accel.previousRate,
                                accelOutOfHold: s.time >= accel.holdUntil, current: state.rotation,
                                gyroscopeConfirmed: gyro.check.confirmed)
        guard m.estimate.length > 0 else { return nil }
        var next = state
        next.inputs = decision.inputsHold(current: state.inputs, final: gyro.check.finding != nil, at: s.time)
        (next.flat, next.tilt, flatRule) = decision.pose(m, state: state)
        next.rotation = decision.rotation(&m, flat: next.flat, accel: &accel, gyro: &gyro)
        if fused { gyro.askAgain(at: s.time, accel: accel.gravity, ready: m.accelReady) }
        return next
    }

    /// Starts every stage afresh at a restart, or blends the reading into the accelerometer's estimate.
    private mutating func begin(_ s: SampleGate.Admitted) {
        if s.restarted {
            accel.restart(from: s.acceleration)
            gyro.restart()
            decision.restart()
        } else {
            accel.follow(s, configuration)
        }
    }

    /// Updates the fused estimate and the turn meters (handing the decision over to the accelerometer-only path
    /// once the gyroscope has been found wrong), learns what 1 g reads, and ends reacquiring once the device has
    /// settled; returns whether the fused estimate is in force.
    private mutating func estimate(_ s: SampleGate.Admitted) -> Bool {
        let step = gyro.update(s, accel: accel.gravity, limits, configuration)
        // A gyroscope found wrong at this sample hands the decision over to the accelerometer-only path before
        // the sample is measured, so that the sample is decided as that path would decide it.
        if gyro.handsOver() { decision.takeOver(from: accel) }
        decision.noteInputs(step.fused ? .accelGyro : .accel, at: s.time)
        if step.fused { accel.shadow(s, configuration) }
        decision.measure(s, fused: step.fused, estimate: step.fused ? gyro.gravity : accel.gravity,
                         rate: step.fused ? gyro.inPlaneRate : 0, turnedUnobserved: step.turnedUnobserved,
                         confirmed: gyro.check.confirmed)
        let settleTime = decision.settleTime(fused: step.fused)
        let lastFast = decision.meter.lastFastTime
        gate.learn(from: s, lastFast: lastFast, settleTime: settleTime, configuration)
        gyro.endReacquiring(s, heldUntil: decision.holdUntil, lastFast: lastFast, settleTime: settleTime)
        return step.fused
    }

    /// Publishes the display's part of `next` when it differs from the state published, returning whether it
    /// did; before the first decision only a flat device has something to say.
    private mutating func publish(_ next: DeviceState) -> Bool {
        if !decision.published && next.rotation == nil && !next.flat { return false }
        var next = next
        next.fold = state.fold
        guard next != state else { return false }
        if next.rotation != state.rotation { gyro.noteChange(accel: accel.gravity) }
        state = next
        decision.notePublished()
        return true
    }

    /// Whether nothing is pending: the device has been settled for the settle time, is not in motion, no new
    /// quadrant is waiting out its dwell, and what 1 g reads is learned (`LearnedGravity.settlingTime`, once per
    /// engine). More samples of the same pose would change nothing.
    public var isQuiet: Bool {
        guard gate.started, decision.published, decision.candidate == nil, !gyro.reacquiring,
              decision.inputsSeen == state.inputs,
              learnedGravity.isSettled(), posture.isSettled(at: gate.lastTime) else { return false }
        let c = configuration
        let t = gate.lastTime
        let fused = gyro.readRecently(at: t, c)
        guard t >= decision.holdUntil, t - gate.lastMotion >= c.motionHoldoff,
              t - decision.meter.lastFastTime >= decision.settleTime(fused: fused) else { return false }
        // The fused estimate converges on the accelerometer over `fusionTime`; while the accelerometer alone
        // would propose another quadrant, more samples may still change the decision.
        if fused, !state.flat, let current = state.rotation {
            return decision.diagonalHysteresis(accel.gravity, current: current) == current
        }
        return true
    }

    /// What 1 g reads on the sensor, as learned from the samples so far.
    public var learnedGravity: LearnedGravity {
        LearnedGravity(value: gate.reference.oneG, stillTime: gate.reference.stillTime)
    }

    /// Why the gyroscope is no longer used, once the engine has found it disagreeing with the accelerometer;
    /// nil while it is trusted (or there is none).
    public var gyroscopeFinding: GyroscopeFinding? { gyro.check.finding }

    /// Whether the gyroscope has followed a turn the accelerometer saw (`GyroscopeCheck.confirmed`).
    var gyroscopeConfirmed: Bool { gyro.check.confirmed }

    /// The gyroscope bias learned so far, rad/s in the device frame; zero without a gyroscope.
    var gyroBias: Vector3 { gyro.bias }

    /// The gyroscope-fused gravity estimate, m/s² in the device frame; zero until a gyroscope reading arrives.
    var fusedGravity: Vector3 { gyro.gravity }

    /// Forgets every sample seen so far; the published state stays until the next decision.
    public mutating func reset() {
        gate.reset()
        decision.reset()
    }
}
