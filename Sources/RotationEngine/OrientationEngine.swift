/// Turns calibrated samples into a device rotation, a tilt class and a flat flag.
///
/// The engine is a value with no I/O and no clock of its own: replay, live input and tests drive the same
/// code by calling `process(_:)` with samples in time order. `Docs/algorithm.md` describes the rules.
///
/// Each sample goes through these stages:
/// 1. Bad samples (a NaN, infinite or zero acceleration, a time that is not finite or runs backwards) are
///    dropped. A gap longer than `maxGap` restarts the filter.
/// 2. Gravity is estimated by a low-pass filter, and the angular speed of its direction is measured.
/// 3. While |a| is far from the pose magnitude, what the part reads at rest in this pose (shaking, a bump),
///    everything is frozen for `motionHoldoff`. No test compares a reading with 9.81 m/s², so a part with a
///    missing or wrong scale gives the same decisions as a correct one; what 1 g reads is learned on the side.
/// 4. The elevation of gravity out of the screen plane gives the flat flag (with hysteresis) and the tilt class.
/// 5. While not flat, the in-plane direction of gravity proposes a quadrant, with hysteresis around the
///    diagonals. A new quadrant is published once it has been proposed for `dwellTime` and the device has
///    been settled (turning slower than `settleRate`) for `settleTime`.
///
/// When samples carry angular velocity, stage 2 uses a gyroscope-driven estimate corrected towards the
/// accelerometer and the gyroscope's turn rate, and stage 3 is replaced by fading the accelerometer out of
/// that estimate (`Docs/fusion.md`). A sample without a reading moves the fused estimate by the accelerometer
/// correction only; without readings for `gyroTimeout` the engine falls back to stage 2 as written, whose
/// estimate is kept current all along. A reading after such a gap (or after a slow pace while still) restarts
/// the fused estimate from the accelerometer, reacquiring it with the motion hold when the device has moved.
public struct OrientationEngine: Sendable {
    /// The thresholds in force.
    public let configuration: EngineConfiguration
    /// The state last published.
    public private(set) var state: DeviceState = .initial

    private let limits: EngineLimits
    private var gate: SampleGate
    private var accel = AccelerometerEstimate()
    private var gyro = FusedEstimate()
    private var meter = TurnRateMeter()
    private var published = false
    private var motionUntil: Double = -.infinity
    private var candidate: Rotation?
    private var candidateSince: Double = 0
    private var previousGyroRate = 0.0
    static let turnNeeded = 30.0
    static let turnCarries = 60.0
    static let tiltedEnough = 0.57
    static let leanedEnough = 0.34

    /// Creates an engine with the given thresholds.
    public init(configuration: EngineConfiguration = .default) {
        self.configuration = configuration
        self.limits = EngineLimits(configuration)
        self.gate = SampleGate(gravity: configuration.gravity)
    }

    /// Feeds one sample; returns the new state when the published state changed, else nil.
    ///
    /// A sample with a NaN, infinite or zero acceleration, or a time that is not finite or runs backwards,
    /// is ignored and changes nothing.
    public mutating func process(_ sample: Sample) -> DeviceState? {
        let c = configuration
        guard let s = gate.admit(sample, c) else { return nil }
        let t = s.time, dt = s.dt, moving = s.moving
        if s.restarted {
            accel.restart(from: s.acceleration)
            gyro.restart()
            meter.reset()
            candidate = nil
            motionUntil = -.infinity
        } else {
            accel.follow(s, c)
        }
        // A gyroscope found to disagree with the accelerometer is not used again (`GyroscopeCheck`). From the
        // sample after the finding, the accelerometer-only path goes on from the state it would have had all
        // along (its turn meter and motion hold, kept while fused): the estimate it takes over moved to where
        // the accelerometer is, a move that must not count as a turn still to settle.
        if gyro.handsOver() {
            meter = accel.meter
            motionUntil = max(motionUntil, accel.holdUntil)
        }
        let step = gyro.update(s, accel: accel.gravity, limits, c)
        let fused = step.fused
        if step.turnedUnobserved { meter.noteUnobserved(until: t) }
        if fused { accel.shadow(s, c) }
        var f = fused ? gyro.gravity : accel.gravity
        let settleRate = fused ? c.fusedSettleRate : c.settleRate
        let settleTime = fused ? c.fusedSettleTime : c.settleTime
        previousGyroRate = abs(meter.rate)
        if fused {
            meter.update(measuredRate: gyro.inPlaneRate, cosA: -f.y, sinA: f.x, time: t, dt: dt,
                         timeConstant: c.gyroRateSmoothingTime, limit: settleRate)
        } else {
            meter.update(cosA: -f.y, sinA: f.x, time: t, dt: dt, timeConstant: c.rateSmoothingTime, limit: settleRate)
        }
        gate.learn(from: s, lastFast: meter.lastFastTime, settleTime: settleTime, c)
        gyro.endReacquiring(s, heldUntil: motionUntil, lastFast: meter.lastFastTime, settleTime: settleTime)
        if !fused || gyro.reacquiring {
            if moving {
                motionUntil = t + c.motionHoldoff
                candidate = nil
            }
            // While moving, the reading is not gravity: hold everything. The fused estimate needs no hold once
            // it is established: it follows the gyroscope and fades the accelerometer out instead.
            guard t >= motionUntil else { return nil }
        }

        let length = f.length
        guard length > 0 else { return nil }
        var next = state
        next.inputs = fused ? .accelGyro : .accel
        // Sine of the elevation of gravity out of the screen plane: +1 face up, −1 face down.
        let sinElevation = f.z / length
        let absSin = abs(sinElevation)
        // Fused, the flat flag and the tilt class change only where the accelerometer agrees, as rotations do.
        // The flag follows the accelerometer without the fused estimate's agreement where the accelerometer
        // alone would change it now (a gyroscope reading too little lags behind).
        let accelLength = accel.gravity.length
        let accelSin = fused && accelLength > 0 ? abs(accel.gravity.z / accelLength) : absSin
        if state.flat {
            // Lifting the device is seen by the accelerometer while |a| stands for gravity.
            if accelSin < limits.sinFlatExit && (absSin < limits.sinFlatExit || !moving) { next.flat = false }
        } else if accelSin > limits.sinFlatEnter && (absSin > limits.sinFlatEnter || !fused || accelerometerReady(at: t)) {
            next.flat = true
        }
        next.tilt = tilt(sinElevation: sinElevation, flat: next.flat, current: state.tilt)
        if fused, accelLength > 0, next.tilt != tilt(sinElevation: accel.gravity.z / accelLength, flat: next.flat, current: state.tilt) {
            next.tilt = state.tilt
        }

        // A sound gyroscope carries the fused estimate into a new quadrant before the accelerometer settles
        // there. When the accelerometer has settled in another quadrant than the fused estimate (a gyroscope
        // that reads too little, or turns the estimate elsewhere), the estimate starts again from the
        // accelerometer, so no decision waits longer than the accelerometer's own would, and the gyroscope's
        // part in that turn is judged (`GyroscopeCheck.followed`).
        if fused, !gyro.reacquiring, published, !next.flat, let current = state.rotation {
            accel.propose(quadrant(accel.gravity, current: current), current: current, moving: moving, at: t)
            if let seen = accel.candidate, seen != quadrant(f, current: current), accelerometerReady(at: t),
               t - accel.candidateSince >= c.dwellTime {
                gyro.restart(from: accel.gravity, at: t, c)
                f = gyro.gravity
                candidate = seen
                candidateSince = accel.candidateSince
                accel.dropCandidate()
            }
        }

        if next.flat {
            candidate = nil
        } else if !published {
            // The first decision needs no dwell, since there is nothing yet it could wrongly replace; it only
            // waits until the device has been settled for `settleTime`, so one lucky sample of a shaken device
            // cannot decide it.
            if !moving, t - meter.lastFastTime >= settleTime || fused && accelerometerReady(at: t),
               !fused || accelerometerAgrees(nearestQuadrant(f)), !fused || accelerometerSettled(strict: true) {
                next.rotation = nearestQuadrant(f)
            }
            candidate = nil
        } else {
            var proposal = quadrant(f, current: state.rotation)
            if fused, proposal == state.rotation, let current = state.rotation, let into = turnedInto(f, from: current) {
                proposal = into
            }
            if proposal == state.rotation {
                candidate = nil
            } else {
                if proposal != candidate {
                    candidate = proposal
                    candidateSince = t
                }
                if t - candidateSince >= c.dwellTime, abs(meter.rate) < settleRate, t - meter.lastFastTime >= settleTime,
                   !fused || accelerometerAgrees(proposal),
                   !fused || accelerometerSettled(strict: true),
                   !fused || turnedOrTilted(f)
                       || !gyro.check.confirmed && accelerometerReady(at: t) && quadrant(accel.gravity, current: state.rotation) == proposal
                          && leansEnough(accel.gravity),
                   !fused || gyro.followed(at: t, accel: accel.gravity) || accelerometerReady(at: t) {
                    next.rotation = proposal
                    candidate = nil
                }
            }
        }
        // Before the first decision only a flat device has something to say.
        if !published && next.rotation == nil && !next.flat { return nil }
        guard next != state else { return nil }
        if next.rotation != state.rotation { gyro.noteChange(accel: accel.gravity) }
        state = next
        published = true
        return next
    }

    /// Whether nothing is pending: the device has been settled for the settle time, is not in motion, and no
    /// new quadrant is waiting out its dwell. More samples of the same pose would change nothing.
    public var isQuiet: Bool {
        guard gate.started, published, candidate == nil, !gyro.reacquiring else { return false }
        let c = configuration
        let lastTime = gate.lastTime
        let fused = gyro.readRecently(at: lastTime, c)
        guard lastTime >= motionUntil, lastTime - gate.lastMotion >= c.motionHoldoff,
              lastTime - meter.lastFastTime >= (fused ? c.fusedSettleTime : c.settleTime) else { return false }
        // The fused estimate converges on the accelerometer over `fusionTime`; while the accelerometer alone
        // would propose another quadrant, more samples may still change the decision.
        if fused, !state.flat, let current = state.rotation {
            return quadrant(accel.gravity, current: current) == current
        }
        return true
    }

    /// What 1 g reads on the part, as learned from the samples so far.
    public var learnedGravity: LearnedGravity {
        LearnedGravity(value: gate.reference.oneG, stillTime: gate.reference.stillTime)
    }

    /// Why the gyroscope is no longer used, once the engine has found it disagreeing with the accelerometer;
    /// nil while it is trusted (or there is none).
    public var gyroscopeFinding: GyroscopeFinding? { gyro.check.finding }

    /// The gyroscope bias learned so far, rad/s in the device frame; zero without a gyroscope.
    var gyroBias: Vector3 { gyro.bias }

    /// The gyroscope-fused gravity estimate, m/s² in the device frame; zero until a gyroscope reading arrives.
    var fusedGravity: Vector3 { gyro.gravity }

    /// Forgets every sample seen so far; the published state stays until the next decision.
    public mutating func reset() {
        gate.reset()
        candidate = nil
        motionUntil = -.infinity
    }

    /// Whether the accelerometer's direction turns slower than the settle rate (twice that, unless `strict`), or
    /// the gyroscope reads at least a quarter of what it sees (the accelerometer's rate spans the step from the
    /// previous sample, so the gyroscope's at either end counts). A fused decision needs it, strictly while
    /// reacquiring, when the estimate is the accelerometer's own: a gyroscope reading too little must not call a
    /// turn over while the accelerometer still sees it under way. A sound gyroscope reads what the
    /// accelerometer sees.
    private func accelerometerSettled(strict: Bool) -> Bool {
        let accel = abs(self.accel.meter.rate), limit = configuration.settleRate
        return accel < (strict ? limit : 2 * limit) || max(abs(meter.rate), previousGyroRate) >= 0.25 * accel
    }

    /// Whether a fused change of rotation is borne out by the device itself: the gyroscope measured it turn
    /// about the screen's axis by `turnNeeded` (30°) since the last change, or the device leans no further back
    /// than about 55° (the in-plane part of gravity at least `tiltedEnough` of it). Otherwise, until the
    /// gyroscope has shown that it measures the turns the accelerometer sees (`GyroscopeCheck.confirmed`), a
    /// fused change may still go where the accelerometer alone would go now: a gyroscope that reads too little
    /// must not hold a rotation back.
    ///
    /// Near flat, gravity's in-plane part is small, and an uncalibrated part's offsets (up to a quarter of g)
    /// can swing its direction across a diagonal while the device does not turn at all: the gyroscope, which
    /// offsets do not touch, says it did not. Lifting a device that lay flat turns nothing about its screen's
    /// axis either, but the pose it is lifted to leans far less than 55°.
    ///
    /// The measured turn counts only where the accelerometer's own in-plane direction turned the same way since
    /// the last change, by `turnNeeded` and at least 60 % as far: an uncalibrated part lying on a table reads a
    /// direction that is its offsets' alone, and turning it on the table, which the gyroscope measures, leaves
    /// that direction where it was (or moves it a little as the device is laid down).
    private func turnedOrTilted(_ f: Vector3) -> Bool {
        let length = f.length
        if length > 0 && (f.x * f.x + f.y * f.y).squareRoot() >= Self.tiltedEnough * length { return true }
        let turned = gyro.turned
        guard abs(turned) >= Self.turnNeeded else { return false }
        guard let before = gyro.accelAtChange else { return true }
        let seen = TurnRateMeter.turn(from: before, to: accel.gravity)
        return seen * turned > 0 && abs(seen) >= max(Self.turnNeeded, 0.6 * abs(turned))
    }

    /// The neighbouring quadrant the gyroscope measured the device turn into, when the estimate lies on that
    /// side of the diagonal but not yet `boundaryHysteresis` past it; else nil.
    ///
    /// The hysteresis keeps a device held near a diagonal from flapping. An uncalibrated part (offsets up to a
    /// quarter of g, gains 8 % apart) can read a quarter turn as little as 55° from where it began, and the
    /// hysteresis would then keep the old rotation for as long as the device is held there. A turn of
    /// `turnCarries` (60°) about the screen's axis, which offsets do not touch, says the device did leave its
    /// quadrant; a device merely held near the diagonal turned less than that.
    private func turnedInto(_ f: Vector3, from current: Rotation) -> Rotation? {
        let turned = gyro.turned
        guard abs(turned) >= Self.turnCarries else { return nil }
        // The gyroscope's turn is counted positive clockwise, as rotations are.
        guard let next = Rotation(degrees: current.degrees + (turned > 0 ? 90 : -90)) else { return nil }
        return nearestQuadrant(f) == next ? next : nil
    }

    /// Whether gravity's in-plane part is at least `leanedEnough` of it (the screen at least 20° from flat): a
    /// fused change that the gyroscope did not measure as a turn about the screen's axis needs it, even before
    /// the gyroscope is confirmed. Below that, a quarter g of offsets can make up most of the in-plane reading:
    /// an uncalibrated part laid on a table reads a direction of its own, swinging as the device is lowered,
    /// while the device turns nothing; the gyroscope saw no turn, and a lift from flat leans further than that.
    private func leansEnough(_ g: Vector3) -> Bool {
        (g.x * g.x + g.y * g.y).squareRoot() >= Self.leanedEnough * g.length
    }

    /// Whether the accelerometer-only path would call a turn over at `t`: out of its motion hold and turning
    /// slower than the settle rate for the settle time. A fused decision whose turn the gyroscope turns out
    /// not to have followed (the gyroscope is dropped there and then) still stands when this holds, since the
    /// accelerometer alone would make it now.
    private func accelerometerReady(at t: Double) -> Bool {
        accel.isReady(at: t, configuration)
    }

    /// Whether the accelerometer's own estimate points within 60° of `rotation`'s direction: a fused decision
    /// needs it, so that a gyroscope that has not yet been found wrong can delay a decision but never make a
    /// wrong one. At the end of a turn the accelerometer is well inside that, so a sound gyroscope's early
    /// decisions stand.
    ///
    /// Where the device leans back so far that gravity's in-plane part is less than `tiltedEnough` of it, the
    /// accelerometer must point into `rotation`'s quadrant itself. There an uncalibrated part's offsets (up to a
    /// quarter of g) can make up most of the in-plane reading: a device lying on a table reads a direction that
    /// is the offsets' alone, and turning it on the table, which the gyroscope measures, moves that direction
    /// nowhere. The gyroscope's turn must then not carry the rotation into a neighbouring quadrant that the
    /// reading lies within 60° of.
    private func accelerometerAgrees(_ rotation: Rotation) -> Bool {
        let g = accel.gravity
        let inPlane = (g.x * g.x + g.y * g.y).squareRoot()
        guard inPlane > 0 else { return false }
        if inPlane < Self.tiltedEnough * g.length { return nearestQuadrant(g) == rotation }
        return Self.along(rotation, g) >= 0.5 * inPlane
    }

    /// The in-plane part of `f` along `rotation`'s direction (upright (0, −g) is 0°, left edge up (+g, 0) is
    /// 90°, clockwise).
    private static func along(_ rotation: Rotation, _ f: Vector3) -> Double {
        switch rotation {
        case .normal: -f.y
        case .leftUp: f.x
        case .bottomUp: f.y
        case .rightUp: -f.x
        }
    }

    /// The quadrant gravity points into, ignoring the current rotation.
    private func nearestQuadrant(_ f: Vector3) -> Rotation {
        // In-plane direction as (cos, sin) of the clockwise angle from upright: upright (0, −g) is 0°,
        // left edge up (+g, 0) is 90°.
        let cosA = -f.y, sinA = f.x
        if abs(cosA) >= abs(sinA) { return cosA >= 0 ? .normal : .bottomUp }
        return sinA >= 0 ? .leftUp : .rightUp
    }

    /// The quadrant for the in-plane direction of `f`, keeping `current` until the direction is
    /// `boundaryHysteresis` past the diagonal.
    private func quadrant(_ f: Vector3, current: Rotation?) -> Rotation {
        guard let current else { return nearestQuadrant(f) }
        let inPlane = (f.x * f.x + f.y * f.y).squareRoot()
        if Self.along(current, f) >= limits.cosKeep * inPlane { return current }
        return nearestQuadrant(f)
    }

    /// The tilt class; a class the device is already in is kept until the elevation is `tiltHysteresis`
    /// past the boundary.
    private func tilt(sinElevation s: Double, flat: Bool, current: Tilt?) -> Tilt {
        if flat { return s >= 0 ? .faceUp : .faceDown }
        switch current {
        case .vertical?:
            if s > limits.sinVerticalOuter { return .tiltedUp }
            if s < -limits.sinVerticalOuter { return .tiltedDown }
            return .vertical
        case .tiltedUp?:
            if s >= limits.sinVerticalInner { return .tiltedUp }
            return s < -limits.sinVerticalOuter ? .tiltedDown : .vertical
        case .tiltedDown?:
            if s <= -limits.sinVerticalInner { return .tiltedDown }
            return s > limits.sinVerticalOuter ? .tiltedUp : .vertical
        default:
            if abs(s) <= limits.sinVertical { return .vertical }
            return s > 0 ? .tiltedUp : .tiltedDown
        }
    }
}
