import RotationProtocol

/// The rules of `DecisionRule`, one function each, in the order the engine applies them.
extension Decision {
    /// A measured turn about the screen's axis that bears a change out near flat, degrees.
    static let turnNeeded = 30.0
    /// A measured turn about the screen's axis that carries the rotation past the diagonal's hysteresis, degrees.
    static let turnCarries = 60.0
    /// Gravity's in-plane part, as a fraction of it, below which the device counts as near flat (leaning back
    /// more than about 55°).
    static let tiltedEnough = 0.57
    /// Gravity's in-plane part, as a fraction of it, of a screen 20° from flat.
    static let leanedEnough = 0.34

    /// **motionHold.** While the accelerometer decides (no gyroscope, or one found wrong), a reading whose |a| is
    /// off the pose magnitude is not gravity: a shake, a bump. For `motionHoldoff` after it nothing changes, and a
    /// pending quadrant is dropped, so a change needs a fresh settle. While the fused estimate reacquires after a
    /// gap in the readings, such a reading drops the pending quadrant and keeps the estimate on the accelerometer
    /// for `motionHoldoff` (`FusedEstimate.endReacquiring`), but the decision goes on under the gyroscope's turn
    /// rate and the accelerometer's veto: on an uncalibrated sensor |a| differs from one pose to the next, so the
    /// reading that finds a turn made between two slow reads is often "off", and holding for it cost every such
    /// turn a quarter of a second. The fused estimate needs no hold once it is established: it follows the
    /// gyroscope and fades the accelerometer out. Returns whether the decision goes on with this sample.
    ///
    /// Shown by the engine tests "a device shaken from the first sample…" and "motionTolerance decides which
    /// shakes freeze the filter"; on offset sensors it costs latency (`Docs/bench-rule-cost.txt`).
    mutating func motionHold(_ s: SampleGate.Admitted, accelerometerDecides: Bool, reacquiring: Bool) -> Bool {
        guard accelerometerDecides || reacquiring, switches.isOn(.motionHold) else { return true }
        if s.moving {
            holdUntil = s.time + configuration.motionHoldoff
            candidate = nil
        }
        return !accelerometerDecides || s.time >= holdUntil
    }

    /// **flatNeedsAccelerometer.** Fused, the flat flag changes only where the accelerometer's own reading crosses
    /// the threshold too (`accelCrosses`), as rotations need its agreement: a gyroscope that has not yet been
    /// found wrong can delay a change but not make one the accelerometer does not see.
    ///
    /// Shown by the gyroscope ×1000 copies (`traces-gyro1000/table-10hz-1`).
    func flatNeedsAccelerometer(accelCrosses: Bool) -> Bool {
        !switches.isOn(.flatNeedsAccelerometer) || accelCrosses
    }

    /// **flatFollowsAccelerometer.** Fused, the flat flag changes with the accelerometer alone where the
    /// accelerometer-only path would change it now: lifting a flat device, while |a| stands for gravity; laying
    /// one down, once the accelerometer is settled. A gyroscope that reads too little leaves the fused estimate
    /// behind.
    ///
    /// It buys latency on offset sensors; no count of a trace or a test changes without it.
    func flatFollowsAccelerometer(_ m: Moment, accelCrosses: Bool, entering: Bool) -> Bool {
        switches.isOn(.flatFollowsAccelerometer) && m.fused && accelCrosses && (entering ? m.accelReady : !m.moving)
    }

    /// **tiltNeedsAccelerometer.** Fused, the tilt class changes only where the accelerometer's own reading gives
    /// the same class (`accelTilt`); otherwise it stays `current`.
    ///
    /// A gyroscope bias larger than what is learned leaves the fused estimate tilted (engine test "a
    /// gyroscope bias larger than biasRateLimit…").
    func tiltNeedsAccelerometer(_ m: Moment, tilt: Tilt, accelTilt: Tilt, current: Tilt?) -> Tilt? {
        switches.isOn(.tiltNeedsAccelerometer) && m.fused && accelTilt != tilt ? current : tilt
    }

    /// **diagonalHysteresis.** The quadrant `f` proposes, keeping `current` until gravity's in-plane direction is
    /// `boundaryHysteresis` past the diagonal: held near 45°, the nearest quadrant changes with every bit of
    /// noise.
    ///
    /// Shown by `traces/diagonal-50hz-1` and `DiagonalTests`.
    func diagonalHysteresis(_ f: Vector3, current: Rotation?) -> Rotation {
        guard let current, switches.isOn(.diagonalHysteresis) else { return Rotation.nearest(f) }
        if current.along(f) >= limits.cosKeep * Self.inPlane(f) { return current }
        return Rotation.nearest(f)
    }

    /// **accelerometerTakesOver.** A sound gyroscope carries the fused estimate into a new quadrant before the
    /// accelerometer settles there. Where the accelerometer has settled in another quadrant than the fused
    /// estimate (a gyroscope that reads too little, or turns the estimate elsewhere), under the conditions the
    /// accelerometer-only path would decide on (out of its motion hold, settled, past the dwell time), the
    /// estimate starts again from the accelerometer, so no decision waits longer than the accelerometer's own
    /// would. Returns that quadrant; the caller restarts the estimate, which judges the gyroscope's part in the
    /// turn. The accelerometer's candidate is tracked as the accelerometer-only path tracks its own.
    ///
    /// Shown by the gyroscope ×0.001 copies and the engine test "a gyroscope reading 1000 times too slow is
    /// found at the first turn it does not follow…".
    func accelerometerTakesOver(_ m: Moment, current: Rotation, accel: inout AccelerometerEstimate) -> Rotation? {
        guard switches.isOn(.accelerometerTakesOver) else { return nil }
        accel.propose(diagonalHysteresis(m.accel, current: current), current: current, moving: m.moving, at: m.time)
        guard let seen = accel.candidate, seen != diagonalHysteresis(m.estimate, current: current),
              m.time - accel.candidateSince >= configuration.dwellTime else { return nil }
        return m.accelReady || accelerometerTurnEnding(m, proposal: seen) ? seen : nil
    }

    /// **gyroscopeCarriesQuarterTurn.** Fused, where the estimate keeps the current rotation only by the
    /// diagonal's hysteresis, a turn of `turnCarries` (60°) about the screen's axis since the last change
    /// proposes the neighbouring quadrant it turned into. An uncalibrated sensor (offsets up to a quarter of g,
    /// gains 8 % apart) can read a quarter turn as little as 55° from where it began; offsets do not touch the
    /// gyroscope, and a device merely held near the diagonal turned less than 60°.
    ///
    /// Shown by the offset copy `offset-2/rotations-10hz-1` and the engine test "a quarter turn that an
    /// uncalibrated sensor reads as 55°…".
    func gyroscopeCarriesQuarterTurn(_ m: Moment, proposal: Rotation, turned: Double) -> Rotation? {
        guard switches.isOn(.gyroscopeCarriesQuarterTurn), m.fused, proposal == m.current, let current = m.current,
              abs(turned) >= Self.turnCarries else { return nil }
        // The gyroscope's turn is counted positive clockwise, as rotations are.
        guard let next = Rotation(degrees: current.degrees + (turned > 0 ? 90 : -90)) else { return nil }
        return Rotation.nearest(m.estimate) == next ? next : nil
    }

    /// **finishedTurnFound.** Fused, a turn made entirely between two slow reads (the still pace reads 0.4 s apart)
    /// is found by the reading after the gap, which otherwise counts as turning (`FusedEstimate`: the device may
    /// be under way), so the change waits for the next sample, 100 ms later at 10 Hz. The gyroscope's reading at
    /// that sample says whether the device still turns: where it reads less than the fused settle rate in the
    /// screen plane and |a| stands for gravity, the turn is over, and neither the settle time nor the dwell is
    /// waited out at this reading. Only a confirmed gyroscope (`GyroscopeCheck.confirmed`: it followed a turn the
    /// accelerometer saw) is asked: one that reads 1000 times too little reads "at rest" in the middle of a half
    /// turn, where the accelerometer reads the quarter passed on the way.
    ///
    /// Shown by `traces-sensors/clipped-rotations-10hz-2` and the engine test "a turn made between two slow
    /// reads is published at the reading that finds it…".
    func finishedTurnFound(_ s: SampleGate.Admitted, fused: Bool, rate: Double, confirmed: Bool) -> Bool {
        switches.isOn(.finishedTurnFound) && fused && confirmed && !s.moving && abs(rate) < configuration.fusedSettleRate
    }

    /// **dwell.** A change waits until its quadrant has been proposed for `dwellTime` without interruption, so
    /// that a single sample (or a couple at high rates) past the boundary never decides. The first decision
    /// needs no dwell: there is nothing it could wrongly replace; nor does a turn found over
    /// (`finishedTurnFound`), whose sample is the first that could propose it.
    ///
    /// No count of a shared trace changes without it.
    func dwell(_ m: Moment) -> Bool {
        !published || foundFinished || m.time - candidateSince >= configuration.dwellTime
    }

    /// **settled.** A change waits until the estimate in force turns slower than the settle rate and has for the
    /// settle time (`settleRate`, `settleTime`; fused, `fusedSettleRate`, `fusedSettleTime`): the intermediate
    /// quarter of a half turn is passed faster than that, and the far end of a glance is too brief. The first
    /// decision waits until the device is not in motion and has been settled for the settle time (fused, or
    /// the accelerometer-only path would decide), so one lucky sample of a shaken device cannot decide it. A
    /// turn that is ending (`turnEnding`) need not settle.
    ///
    /// Shown by `traces/rotations-50hz-1` and the time rule's engine tests.
    func settled(_ m: Moment) -> Bool {
        let c = configuration
        let quiet = m.time - meter.lastFastTime >= settleTime(fused: m.fused)
        if !published { return !m.moving && (quiet || m.fused && m.accelReady) }
        return abs(meter.rate) < (m.fused ? c.fusedSettleRate : c.settleRate) && quiet
    }

    /// **turnEnding.** A turn read slowing down is over before it settles where it will come to rest inside the
    /// new rotation's quadrant: at that deceleration it stops within `endingTravel`, and where it stops is
    /// near the new rotation's upright (`fusedEndingMargin`; accelerometer only, `endingMargin`). The settle rate and time otherwise cost a turn one
    /// or two samples after it ended, a tenth of a second at 10 Hz: the hand brakes a quarter turn from
    /// 300–400°/s to under 120°/s by the last sample of the move. Fused, the rate is the gyroscope's, under
    /// `fusedEndingRate` and less than at the sample before, in the same direction. With the accelerometer
    /// alone, the rate is that of the accelerometer's direction, smoothed (the settle rule's), under
    /// `endingRate` and `endingBraking` times less than at the sample before: measured from noisy readings, a
    /// steady turn's rate also dips from one sample to the next, and the middle of a slow half turn must not
    /// count as its end. The intermediate quarter of a half turn is passed at full speed, not braking, and a
    /// glance whose far end falls short of the margin changes nothing; the accelerometer's own gates
    /// (`accelerometerAgrees`, `accelerometerSettled`) still apply while fused. The gyroscope is not asked about
    /// such a turn (`gyroscopeFollowed`) until the accelerometer has settled: one that lags the gyroscope has
    /// seen only part of the turn, and a sound gyroscope would be found wrong.
    ///
    /// Shown by `traces/rotations-10hz-1` and the engine tests of `TurnEndingTests`; on the shared traces it
    /// takes the fused p95 from 75 to 40 ms, and the accelerometer-only p95 from 108 to 78 ms
    /// (`Docs/bench-tail-targets.txt`).
    func turnEnding(_ m: Moment, proposal: Rotation) -> Bool {
        let c = configuration
        guard switches.isOn(.turnEnding), published, !m.moving, m.dt > 0 else { return false }
        return m.fused
            ? Self.turnEnds(rate: measuredRate, previous: previousMeasuredRate, dt: m.dt, limit: c.fusedEndingRate,
                            braking: 1, margin: c.fusedEndingMargin, direction: m.estimate, proposal: proposal, c)
            : Self.turnEnds(rate: meter.rate, previous: previousRate, dt: m.dt, limit: c.endingRate,
                            braking: c.endingBraking, margin: c.endingMargin, direction: m.estimate, proposal: proposal, c)
    }

    /// Fused, whether the accelerometer-only path, kept alongside, would find its turn ending into `proposal` at
    /// this sample (`turnEnding`): it then decides as soon as that path would on its own, when it takes over.
    func accelerometerTurnEnding(_ m: Moment, proposal: Rotation) -> Bool {
        let c = configuration
        return switches.isOn(.turnEnding) && published && !m.moving && m.accelOutOfHold
            && Self.turnEnds(rate: m.accelRate, previous: m.accelPreviousRate, dt: m.dt, limit: c.endingRate,
                             braking: c.endingBraking, margin: c.endingMargin, direction: m.accel, proposal: proposal, c)
    }

    /// Whether a turn read at `rate` after `previous` (degrees per second, clockwise) `dt` s before, with gravity
    /// along `direction`, is braking to rest within `margin` of `proposal`'s upright: under `limit`,
    /// `braking` times less than before and the same way, and stopping within `endingTravel` at this
    /// deceleration.
    static func turnEnds(rate: Double, previous: Double, dt: Double, limit: Double, braking: Double, margin: Double,
                         direction: Vector3, proposal: Rotation, _ c: EngineConfiguration) -> Bool {
        let now = abs(rate), before = abs(previous)
        guard dt > 0, now < limit, now * braking < before, rate * previous >= 0 else { return false }
        // Under a constant deceleration the turn stops after rate² / (2 × deceleration).
        let travel = now * now * dt / (2 * (before - now))
        guard travel <= c.endingTravel else { return false }
        let rest = Angles.atan2Degrees(direction.x, -direction.y) + (rate < 0 ? -travel : travel)
        return abs((rest - Double(proposal.degrees)).remainder(dividingBy: 360)) <= margin
    }

    /// **turnLeaving.** Fused, a change waits while the gyroscope reads the device turning away from the new
    /// rotation's upright faster than `fusedLeavingRate` and faster than at the sample before: the device is
    /// leaving the quadrant, not coming to rest in it. A flick pauses at its far end for a few samples and turns
    /// back; where the settle rules let its far end through only at the first sample of the way back, it would be
    /// published as the return began, and the return published again within the same move. Published at the
    /// pause, or not at all, is what a person holding the device sees.
    ///
    /// Shown by the engine test "a flick's far end is published in its pause or not at all…".
    func turnLeaving(_ m: Moment, proposal: Rotation) -> Bool {
        let c = configuration
        guard switches.isOn(.turnLeaving), published, m.fused, c.fusedLeavingRate > 0 else { return false }
        let now = abs(measuredRate)
        return now > c.fusedLeavingRate && now > 2 * abs(previousMeasuredRate)
    }

    /// **accelerometerAgrees.** Fused, a decision needs the accelerometer's own estimate within 60° of the new
    /// rotation's direction, so that a gyroscope not yet found wrong can delay a decision but never make a wrong
    /// one. At the end of a turn the accelerometer is well inside that, so a sound gyroscope's early decisions
    /// stand.
    ///
    /// Shown by the gyroscope ×1000 copies (`traces-gyro1000/flick-50hz-1`).
    func accelerometerAgrees(_ proposal: Rotation, _ m: Moment) -> Bool {
        guard m.fused else { return true }
        let inPlane = Self.inPlane(m.accel)
        return inPlane > 0 && proposal.along(m.accel) >= 0.5 * inPlane
    }

    /// **nearFlatAccelerometerInQuadrant.** Fused, where gravity's in-plane part is less than `tiltedEnough` of
    /// it, the accelerometer's own reading must point into the new rotation's quadrant, not merely within 60° of
    /// it. There an uncalibrated sensor's offsets (up to a quarter of g) can make up most of the in-plane reading:
    /// a device lying on a table reads a direction that is the offsets' alone, and turning it on the table, which
    /// the gyroscope measures, moves that direction nowhere.
    ///
    /// No trace or engine test changes with it alone off.
    func nearFlatAccelerometerInQuadrant(_ proposal: Rotation, _ m: Moment) -> Bool {
        guard m.fused else { return true }
        return !(Self.inPlane(m.accel) < Self.tiltedEnough * m.accel.length) || Rotation.nearest(m.accel) == proposal
    }

    /// **accelerometerSettled.** Fused, until the gyroscope is confirmed, a decision waits while the
    /// accelerometer's direction turns faster than the settle rate and the gyroscope reads less than a quarter of
    /// that (its rate at this sample or the previous one, as the accelerometer's spans the step between them): a
    /// gyroscope that reads too little must not call a turn over while the accelerometer still sees it under way.
    /// A confirmed gyroscope (`GyroscopeCheck.confirmed`) followed a turn of more than 45° to within 40 %, which
    /// one that reads too little cannot; the accelerometer's rate, filtered twice and moved by the hand's own
    /// acceleration, lags the end of a turn it measured, and holding its decision for that costs latency only.
    ///
    /// Shown by the gyroscope ×0.001 copies (`traces-gyro0.001/flick-100hz-1`), and, confirmed, by
    /// `traces-sensors/clipped-rotations-50hz-2` and the engine test "once the gyroscope is confirmed, a turn is
    /// published when it reads the device at rest…".
    func accelerometerSettled(_ m: Moment, proposal: Rotation) -> Bool {
        guard m.fused, !m.gyroscopeConfirmed else { return true }
        let accelRate = abs(m.accelRate)
        return accelRate < configuration.settleRate || max(abs(meter.rate), abs(previousRate)) >= 0.25 * accelRate
            || accelerometerTurnEnding(m, proposal: proposal)
    }

    /// **nearFlatTurnMeasured.** Fused, a change where the estimate leans back further than about 55° (gravity's
    /// in-plane part under `tiltedEnough` of it) needs the gyroscope to have measured a turn of `turnNeeded`
    /// (30°) about the screen's axis since the last change (`turnSeenByAccelerometer`), or, until the gyroscope
    /// is confirmed (`GyroscopeCheck.confirmed`), the accelerometer alone to propose the change now
    /// (`unconfirmedChangeLeans`): a gyroscope that reads too little must not hold a rotation back. Near flat,
    /// an uncalibrated sensor's offsets can swing the in-plane direction across a diagonal while the device does not
    /// turn at all; the gyroscope, which offsets do not touch, says it did not. Lifting a device that lay flat
    /// turns nothing about its screen's axis, but the pose it is lifted to leans less than 55°.
    ///
    /// Shown by the offset copy `offset-2/hover-50hz-1` and the engine test "offsets that carry the in-plane
    /// direction past a diagonal near flat change nothing…".
    func nearFlatTurnMeasured(_ proposal: Rotation, _ m: Moment, gyro: FusedEstimate) -> Bool {
        guard m.fused, published else { return true }
        let f = m.estimate
        let length = f.length
        if length > 0 && Self.inPlane(f) >= Self.tiltedEnough * length { return true }
        if abs(gyro.turned) >= Self.turnNeeded && turnSeenByAccelerometer(m, gyro: gyro) { return true }
        return !gyro.check.confirmed && m.accelReady && diagonalHysteresis(m.accel, current: m.current) == proposal
            && unconfirmedChangeLeans(m)
    }

    /// **turnSeenByAccelerometer.** The gyroscope's measured turn counts (`nearFlatTurnMeasured`) only where the
    /// accelerometer's own in-plane direction turned the same way since the last change, by `turnNeeded` and at
    /// least 60 % as far: an uncalibrated sensor lying on a table reads a direction that is its offsets' alone,
    /// and turning it on the table, which the gyroscope measures, leaves that direction where it was (or moves
    /// it a little as the device is laid down).
    ///
    /// Shown by the engine test "an uncalibrated sensor lying face down on a table keeps its rotation…" (turned
    /// 135°).
    func turnSeenByAccelerometer(_ m: Moment, gyro: FusedEstimate) -> Bool {
        guard switches.isOn(.turnSeenByAccelerometer), let before = gyro.accelAtChange else { return true }
        let seen = TurnRateMeter.turn(from: before, to: m.accel)
        return seen * gyro.turned > 0 && abs(seen) >= max(Self.turnNeeded, 0.6 * abs(gyro.turned))
    }

    /// **unconfirmedChangeLeans.** A change the gyroscope did not measure as a turn, let through by the
    /// accelerometer before the gyroscope is confirmed (`nearFlatTurnMeasured`), needs gravity's in-plane part at
    /// least `leanedEnough` of it (the screen at least 20° from flat). Below that, a quarter g of offsets can make
    /// up most of the in-plane reading: an uncalibrated sensor laid on a table reads a direction of its own,
    /// swinging as the device is lowered, while the device turns nothing; a lift from flat leans further.
    ///
    /// No trace or engine test changes with it alone off.
    func unconfirmedChangeLeans(_ m: Moment) -> Bool {
        !switches.isOn(.unconfirmedChangeLeans) || Self.inPlane(m.accel) >= Self.leanedEnough * m.accel.length
    }

    /// **gyroscopeFollowed.** Fused, before a change the gyroscope is asked whether it followed the turn the
    /// accelerometer saw (`GyroscopeCheck.followed`); one it did not follow is a finding, and the gyroscope is
    /// dropped there and then. The change still stands where the accelerometer-only path would make it now
    /// (settled, or its turn ending).
    /// After every change the gyroscope is asked again once the accelerometer has settled
    /// (`FusedEstimate.askAgain`), and only then about a turn that was still ending (`turnEnding`).
    ///
    /// No trace or engine test changes with it alone off: `accelerometerTakesOver` asks too.
    func gyroscopeFollowed(_ m: Moment, proposal: Rotation, gyro: inout FusedEstimate) -> Bool {
        guard m.fused, published else { return true }
        return gyro.followed(at: m.time, accel: m.accel) || m.accelReady || accelerometerTurnEnding(m, proposal: proposal)
    }

    /// **inputsHold.** The published `inputs` change only once the new value has held for `inputsHoldTime`
    /// (100 ms) at every sample; until then a state carries the value published last. A sample decided from the
    /// accelerometer alone between two gyroscope readings (a separate gyroscope whose reading covering it comes
    /// 20 ms later, at the start of a turn at the still pace) would otherwise publish `accel` and then
    /// `accel+gyro`, two states a client can do nothing with. Before anything is published, and once the
    /// gyroscope has been found wrong (`final`: that change never reverts), the value in use goes out at once.
    ///
    /// 100 ms is the shortest hold that never publishes a value that reverts within 100 ms: a value is published
    /// only after it held that long, and the change back only after it held as long again. Longer would only
    /// delay a real change: a fall-back to the accelerometer, `gyroTimeout` (0.25 s) after the last reading, is
    /// published 0.1 s after that. Shown by the engine test "a change of inputs is published only once it has
    /// held for 100 ms…".
    func inputsHold(current: EngineInputs, final: Bool, at t: Double) -> EngineInputs {
        guard switches.isOn(.inputsHold), published, !final, inputsSeen != current else { return inputsSeen }
        return t - inputsSince >= Self.inputsHoldTime ? inputsSeen : current
    }

    /// How long a change of the inputs in use must hold before it is published, s.
    static let inputsHoldTime = 0.1

    /// The length of `g`'s part in the screen plane.
    static func inPlane(_ g: Vector3) -> Double {
        (g.x * g.x + g.y * g.y).squareRoot()
    }
}
