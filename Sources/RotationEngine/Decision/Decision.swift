import RotationProtocol

/// The engine's last stage: the published state's flat flag, tilt class and rotation, decided from the
/// estimate in force by the named rules of `DecisionRule` (one function each, in `Decision+Rules.swift`).
///
/// It keeps what the decision itself needs across samples: the turn meter of the estimate in force (the
/// gyroscope's rate while fused, the accelerometer's direction otherwise), the accelerometer-only motion hold,
/// and the quadrant waiting out its dwell.
struct Decision: Sendable {
    /// What the rules look at for one sample.
    struct Moment {
        /// The sample's time, s.
        let time: Double
        /// Seconds since the previous sample.
        let dt: Double
        /// Whether |a| is off the pose magnitude.
        let moving: Bool
        /// Whether the fused estimate is in force.
        let fused: Bool
        /// The estimate in force, m/s² in the device frame.
        var estimate: Vector3
        /// The accelerometer's own estimate.
        let accel: Vector3
        /// Whether the accelerometer-only path would call a turn over now (`AccelerometerEstimate.isReady`).
        let accelReady: Bool
        /// The accelerometer-only path's turn rate, kept while fused, degrees per second.
        let accelRate: Double
        /// `accelRate` at the previous sample.
        let accelPreviousRate: Double
        /// Whether the accelerometer-only path is out of its motion hold.
        let accelOutOfHold: Bool
        /// The rotation published last; nil until one is.
        let current: Rotation?
        /// Whether the gyroscope has followed a turn the accelerometer saw (`GyroscopeCheck.confirmed`).
        let gyroscopeConfirmed: Bool
    }

    let configuration: EngineConfiguration
    let limits: EngineLimits
    let switches: RuleSwitches
    /// The turn meter of the estimate in force.
    private(set) var meter = TurnRateMeter()
    /// `meter.rate` at the previous sample.
    private(set) var previousRate = 0.0
    /// The gyroscope's in-plane rate as read at this sample, degrees per second, clockwise (0 while the
    /// accelerometer decides).
    private(set) var measuredRate = 0.0
    /// `measuredRate` at the previous sample.
    private(set) var previousMeasuredRate = 0.0
    /// The end of the accelerometer-only motion hold (set by the `motionHold` rule).
    var holdUntil: Double = -.infinity
    /// The quadrant waiting out its dwell (dropped by the `motionHold` rule), and since when.
    var candidate: Rotation?
    private(set) var candidateSince: Double = 0
    /// Whether a state has been published.
    private(set) var published = false
    /// Whether this sample found a turn made between two slow reads already over (`finishedTurnFound`).
    private(set) var foundFinished = false
    /// The inputs the estimate in force used at the last sample, and since when without a break.
    private(set) var inputsSeen: EngineInputs = .accel
    private(set) var inputsSince: Double = -.infinity
    /// The rule that proposed the pending quadrant (`RotationReason.proposedBy`), and the rule that refused it
    /// last: kept on the side to explain a decision, never read by one.
    private var candidateProposedBy = DecisionRule.diagonalHysteresis
    private var heldBy: DecisionRule?
    /// Why the rotation published last was let through.
    private(set) var rotationReason: RotationReason?

    init(configuration: EngineConfiguration, limits: EngineLimits) {
        self.configuration = configuration
        self.limits = limits
        switches = RuleSwitches(disabled: configuration.disabledRules)
    }

    /// How long the estimate in force must have turned slowly before a change.
    func settleTime(fused: Bool) -> Double {
        fused ? configuration.fusedSettleTime : configuration.settleTime
    }

    /// Starts afresh after a gap: the turn meter, the hold and any pending quadrant are forgotten.
    mutating func restart() {
        meter.reset()
        candidate = nil
        holdUntil = -.infinity
    }

    /// Forgets the pending quadrant and the hold, when the engine is reset.
    mutating func reset() {
        candidate = nil
        holdUntil = -.infinity
    }

    /// The accelerometer-only path takes over from a gyroscope found wrong, in the state it would have had all
    /// along (its turn meter, motion hold and the quadrant it proposed, kept while fused): the estimate it takes
    /// over moved to where the accelerometer is, a move that must not count as a turn still to settle, and a
    /// quadrant it has proposed for the dwell time need not wait it out again.
    mutating func takeOver(from accel: AccelerometerEstimate) {
        meter = accel.meter
        holdUntil = max(holdUntil, accel.holdUntil)
        if let seen = accel.candidate {
            candidate = seen
            candidateSince = accel.candidateSince
        }
    }

    /// Measures the turn of the estimate in force, `f`: by the gyroscope's in-plane `rate` while fused, by the
    /// change of `f`'s direction otherwise. `turnedUnobserved`: readings resumed after a gap across which the
    /// device turned fast, so it counts as turning now, unless the turn is found over (`finishedTurnFound`,
    /// which asks whether the gyroscope is `confirmed`).
    mutating func measure(_ s: SampleGate.Admitted, fused: Bool, estimate f: Vector3, rate: Double, turnedUnobserved: Bool,
                          confirmed: Bool) {
        let c = configuration
        foundFinished = turnedUnobserved && finishedTurnFound(s, fused: fused, rate: rate, confirmed: confirmed)
        if turnedUnobserved && !foundFinished { meter.noteUnobserved(until: s.time) }
        previousRate = meter.rate
        previousMeasuredRate = measuredRate
        measuredRate = fused ? rate : 0
        if fused {
            meter.update(measuredRate: rate, cosA: -f.y, sinA: f.x, time: s.time, dt: s.dt,
                         timeConstant: c.gyroRateSmoothingTime, limit: c.fusedSettleRate)
        } else {
            meter.update(cosA: -f.y, sinA: f.x, time: s.time, dt: s.dt, timeConstant: c.rateSmoothingTime,
                         limit: c.settleRate)
        }
    }

    /// Records the inputs the estimate in force used for the sample at `t`.
    mutating func noteInputs(_ inputs: EngineInputs, at t: Double) {
        guard inputs != inputsSeen else { return }
        inputsSeen = inputs
        inputsSince = t
    }

    /// The flat flag and the tilt class for `m`, from `state`'s, and what changed the flag when it changed.
    func pose(_ m: Moment, state: DeviceState) -> (flat: Bool, tilt: Tilt?, flatRule: FlatRule?) {
        let f = m.estimate
        // Sine of the elevation of gravity out of the screen plane: +1 face up, −1 face down.
        let sinElevation = f.z / f.length
        let absSin = abs(sinElevation)
        let accelLength = m.accel.length
        let accelSin = m.fused && accelLength > 0 ? abs(m.accel.z / accelLength) : absSin
        var flat = state.flat
        var flatRule: FlatRule?
        if state.flat {
            // Lifting the device is seen by the accelerometer while |a| stands for gravity.
            let accelLeaves = accelSin < limits.sinFlatExit
            let crossed = absSin < limits.sinFlatExit
            let leaves = crossed || flatFollowsAccelerometer(m, accelCrosses: accelLeaves, entering: false)
            if leaves && flatNeedsAccelerometer(accelCrosses: accelLeaves) {
                flat = false
                flatRule = crossed ? .flatExitAngle : .flatFollowsAccelerometer
            }
        } else {
            let accelEnters = accelSin > limits.sinFlatEnter
            let crossed = absSin > limits.sinFlatEnter
            let enters = crossed || flatFollowsAccelerometer(m, accelCrosses: accelEnters, entering: true)
            if enters && flatNeedsAccelerometer(accelCrosses: accelEnters) {
                flat = true
                flatRule = crossed ? .flatEnterAngle : .flatFollowsAccelerometer
            }
        }
        let tilt = limits.tilt(sinElevation: sinElevation, flat: flat, current: state.tilt)
        let accelTilt = m.fused && accelLength > 0
            ? limits.tilt(sinElevation: m.accel.z / accelLength, flat: flat, current: state.tilt) : tilt
        return (flat, tiltNeedsAccelerometer(m, tilt: tilt, accelTilt: accelTilt, current: state.tilt), flatRule)
    }

    /// The rotation to publish with `m`: the current one, or a new one that passed every rule. `flat` is the
    /// flag decided for this sample. The accelerometer taking over restarts the fused estimate, so `m`'s
    /// estimate follows it.
    mutating func rotation(_ m: inout Moment, flat: Bool, accel: inout AccelerometerEstimate,
                           gyro: inout FusedEstimate) -> Rotation? {
        if !flat, published, m.fused, !gyro.reacquiring, let current = m.current,
           let seen = accelerometerTakesOver(m, current: current, accel: &accel) {
            gyro.restart(from: m.accel, at: m.time, configuration)
            m.estimate = gyro.gravity
            candidate = seen
            candidateSince = accel.candidateSince
            candidateProposedBy = .accelerometerTakesOver
            heldBy = nil
            accel.dropCandidate()
        }
        if flat {
            candidate = nil
            heldBy = nil
            return m.current
        }
        guard published else {
            // The first decision: the nearest quadrant, with nothing it could wrongly replace.
            candidate = nil
            let first = Rotation.nearest(m.estimate)
            return admits(first, m, gyro: &gyro, proposedBy: nil, since: nil) ? first : m.current
        }
        var proposal = diagonalHysteresis(m.estimate, current: m.current)
        var proposedBy = DecisionRule.diagonalHysteresis
        if let carried = gyroscopeCarriesQuarterTurn(m, proposal: proposal, turned: gyro.turned) {
            proposal = carried
            proposedBy = .gyroscopeCarriesQuarterTurn
        }
        guard proposal != m.current else {
            candidate = nil
            return m.current
        }
        if proposal != candidate {
            candidate = proposal
            candidateSince = m.time
            candidateProposedBy = proposedBy
            heldBy = nil
        }
        guard admits(proposal, m, gyro: &gyro, proposedBy: candidateProposedBy, since: candidateSince) else { return m.current }
        candidate = nil
        return proposal
    }

    /// Whether `proposal` passes the rules (`passes`); notes the rule that refused it, or, when it passes, why
    /// (`rotationReason`). The notes decide nothing.
    private mutating func admits(_ proposal: Rotation, _ m: Moment, gyro: inout FusedEstimate, proposedBy: DecisionRule?,
                                 since: Double?) -> Bool {
        let (refusal, ending) = passes(proposal, m, gyro: &gyro)
        if let refusal {
            heldBy = refusal
            return false
        }
        let passedBy: DecisionRule = published && foundFinished ? .finishedTurnFound : ending ? .turnEnding : .settled
        rotationReason = RotationReason(proposedBy: proposedBy, passedBy: passedBy, heldBy: heldBy, proposedAt: since)
        heldBy = nil
        return true
    }

    /// The first rule of `DecisionRule.rotationGates` that is on and refuses `proposal`, in order, or nil when
    /// every one lets it pass; and whether it passed `settled` as a turn that is ending. The last,
    /// `gyroscopeFollowed`, judges the gyroscope, so it is asked only when every other rule lets the change
    /// through, and not for a turn that is still ending (`turnEnding`): the gyroscope is asked about that one
    /// once the accelerometer has settled (`FusedEstimate.askAgain`).
    private func passes(_ proposal: Rotation, _ m: Moment, gyro: inout FusedEstimate) -> (refusal: DecisionRule?, ending: Bool) {
        var ending = false
        for rule in DecisionRule.rotationGates where switches.isOn(rule) {
            let pass = switch rule {
            case .dwell: dwell(m)
            case .settled: settled(m) || { ending = turnEnding(m, proposal: proposal); return ending }()
            case .turnLeaving: !turnLeaving(m, proposal: proposal)
            case .accelerometerAgrees: accelerometerAgrees(proposal, m)
            case .nearFlatAccelerometerInQuadrant: nearFlatAccelerometerInQuadrant(proposal, m)
            case .accelerometerSettled: accelerometerSettled(m, proposal: proposal)
            case .nearFlatTurnMeasured: nearFlatTurnMeasured(proposal, m, gyro: gyro)
            case .gyroscopeFollowed: ending || gyroscopeFollowed(m, proposal: proposal, gyro: &gyro)
            default: true
            }
            if !pass { return (rule, ending) }
        }
        return (nil, ending)
    }

    /// Records that a state was published.
    mutating func notePublished() {
        published = true
    }
}
