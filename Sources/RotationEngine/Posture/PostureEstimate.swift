import RotationProtocol

/// Decides how a convertible is folded from the sources it has, most trusted first: a hinge sensor, the display
/// and base accelerometers together, the tablet-mode and lid switches.
///
/// A value with no I/O, fed the same samples as the orientation engine (`Sample.base`, `hinge`, `tabletMode`,
/// `lidClosed`). The hinge angle read from the two accelerometers is held, not guessed, while it cannot be read:
/// while either panel is accelerated (carried, shaken, typed on) and while the hinge points up. Closed and
/// folded back read the same, and only the side the hinge was last seen on tells them apart. Each threshold has
/// its hysteresis (`PostureLimits`), so a hinge wobbling at one does not flap. `Docs/posture.md` tells the whole.
public struct PostureEstimate: Sendable {
    /// What is published now.
    public private(set) var state = PostureState.unknown

    private var lid = PanelFilter()
    private var base = PanelFilter()
    private var lastBase = -Double.infinity
    private var hadBase = false
    /// The time of the first sample without a base reading since the last one that had it (or since a gap with no
    /// sample at all), nil while they have it.
    private var baseMissingSince: Double?
    /// The time of the sample before this one.
    private var lastSample = -Double.infinity
    /// The angle in force (degrees, 0...360), held while it cannot be read; nil before the first reading.
    private var hinge: Double?
    /// Whether a hinge sensor has given a reading: from then on it alone decides the angle, and a sample without
    /// one (live, most carry none: it is read at most ten times a second) leaves its angle in force, not the
    /// accelerometers' own.
    private var sensorRead = false
    private var readable = true
    /// The angle roughly followed from every reading with gravity in it, steady or not, so that a fold made
    /// while moving still shows which side of flat the hinge went: only the side is taken from it.
    private var side: Double?
    /// The time of the sample at which a reading was first found across the seam from the side in force, while
    /// no reading on this side has been taken since (`noSeamJump`).
    private var seamJumpSince: Double?
    /// Whether the keyboard is folded out of use (past `foldedEnter`, until back under `foldedLeave`).
    private var folded = false
    /// Since when the angle has stayed past `foldedEnter`, while not yet folded.
    private var pastFoldedSince: Double?
    /// Where the angle in force was read from: a hinge sensor, once one has been read, is the only source after.
    private var hingeSource: PostureReason.Source { sensorRead ? .hingeSensor : .accelerometers }
    /// Why the posture published last was decided: kept on the side, never read by a decision.
    public private(set) var reason: PostureReason?

    /// Creates an estimate that knows nothing yet.
    public init() {}

    /// Whether the device has told anything of a fold: a base sensor, a hinge sensor or a switch.
    public var hasSource: Bool { state.posture != nil || hadBase }

    /// Whether more samples of the same pose would change nothing: no fold waiting out its dwell (a sample after
    /// the dwell decides it, however still the display), and no base, or both panels read steadily and their
    /// smoothed readings have caught up.
    public func isSettled(at t: Double) -> Bool {
        if !folded, pastFoldedSince != nil, let h = hinge, h > PostureLimits.foldedEnter { return false }
        return !hadBase || (lid.steady(for: PostureLimits.settleTime, at: t) && base.steady(for: PostureLimits.settleTime, at: t)
                            && lid.caughtUp && base.caughtUp)
    }

    /// Takes one sample; returns the state in force after it.
    @discardableResult
    public mutating func update(_ s: Sample) -> PostureState {
        lid.follow(s.acceleration, at: s.time)
        if let b = s.base {
            if !hadBase || s.time - lastBase > PostureLimits.maxGap { base.reset() }
            base.follow(b, at: s.time)
            lastBase = s.time
            hadBase = true
            baseMissingSince = nil
        } else if hadBase && (baseMissingSince == nil || s.time - lastSample > PostureLimits.baseLostAfter) {
            baseMissingSince = s.time
        }
        lastSample = s.time
        // Samples that come without a base reading for baseLostAfter mean a detached base; a gap with no samples
        // at all (the display asleep on its motion event, the base read meanwhile) does not.
        let baseHere = hadBase && (baseMissingSince.map { s.time - $0 <= PostureLimits.baseLostAfter } ?? true)
        var next = state
        let firstAngle = hinge == nil
        if let sensor = s.hinge, sensor.isFinite {
            hinge = min(max(sensor, 0), 360)
            readable = true
            sensorRead = true
        } else if baseHere {
            if !sensorRead { readAccelerometers(s) }
        } else if hadBase {
            // A detachable without its base is a tablet; what the base read before says nothing now.
            hinge = nil
            side = nil
            seamJumpSince = nil
            base.reset()
            next.baseRotation = nil
        }
        next.posture = decide(s, baseHere: baseHere, firstAngle: firstAngle)
        if next.posture != state.posture, let posture = next.posture {
            reason = explain(posture, after: state.posture, s, baseHere: baseHere)
        }
        next.hinge = published(next.posture)
        if next.hinge != nil || hinge == nil { next.heldHinge = next.hinge }
        if baseHere, let b = base.value { next.baseRotation = baseRotation(b, current: state.baseRotation) }
        state = next
        return next
    }

    /// Reads the angle from the two accelerometers where they allow it, and holds it where they do not.
    private mutating func readAccelerometers(_ s: Sample) {
        guard let l = lid.value, let b = base.value else { return }
        followSide(s)
        let steady = lid.steady(for: PostureLimits.settleTime, at: s.time) && base.steady(for: PostureLimits.settleTime, at: s.time)
        let across = min(HingeGeometry.across(l), HingeGeometry.across(b))
        readable = across >= (readable ? PostureLimits.unreadableAcross : PostureLimits.readableAcross)
        guard readable, steady, let raw = HingeGeometry.angle(lid: l, base: b, minimumAcross: 0) else { return }
        let known = side ?? hinge
        var previous = known
        // With no history, a switch says which end an ambiguous reading is at; without one, closed is likelier.
        if previous == nil, s.tabletMode == true { previous = 360 }
        if s.lidClosed == true { previous = 0 }
        let angle = HingeGeometry.resolve(raw, previous: previous, stableRange: PostureLimits.stableRange)
        // A closed lid switch puts the hinge at the closed end whatever was read before.
        guard s.lidClosed == true || noSeamJump(angle, from: known, at: s.time) else { return }
        hinge = angle
        side = angle
    }

    /// Follows the side of flat the hinge is on from the latest raw readings while both are mostly gravity.
    private mutating func followSide(_ s: Sample) {
        guard let b = s.base, lid.rest > 0, base.rest > 0,
              abs(s.acceleration.length - lid.rest) <= PostureLimits.sideDeviation * lid.rest,
              abs(b.length - base.rest) <= PostureLimits.sideDeviation * base.rest,
              let raw = HingeGeometry.angle(lid: s.acceleration, base: b, minimumAcross: PostureLimits.readableAcross)
        else { return }
        let previous = side ?? hinge
        let angle = HingeGeometry.resolve(raw, previous: previous, stableRange: PostureLimits.stableRange)
        if noSeamJump(angle, from: previous, at: s.time) { side = angle }
    }

    /// **noSeamJump.** Whether `angle`, read at `t`, may follow `previous`: not when it lies across the 0°/360° seam
    /// from it (more than 180° away along the hinge), unless a reading at an earlier sample found the same with no
    /// reading on this side taken since. The hinge stops at both ends, so it cannot pass through the seam, where
    /// closed and folded back read alike; the long way round is more than half a turn, which no hand folds between
    /// two samples. A single such reading is a shaken or nearly upright device's direction error (352°, then 72°,
    /// then 348° 0.3 s later); a fold that really went round is read across the seam again at the next reading,
    /// and taken then. Returns whether the angle is taken.
    private mutating func noSeamJump(_ angle: Double, from previous: Double?, at t: Double) -> Bool {
        guard let previous, abs(angle - previous) > 180 else {
            seamJumpSince = nil
            return true
        }
        if let since = seamJumpSince, since < t {
            seamJumpSince = nil
            return true
        }
        seamJumpSince = t
        return false
    }

    /// The posture the sources give, with each threshold's hysteresis; the current one while nothing decides.
    private mutating func decide(_ s: Sample, baseHere: Bool, firstAngle: Bool) -> Posture? {
        if s.lidClosed == true { return .closed }
        guard let h = hinge else {
            if hadBase && !baseHere && s.hinge == nil { return .tablet }
            if let mode = s.tabletMode { return mode ? .tablet : .laptop }
            // A lid switch alone: an open lid is a laptop's one posture.
            if s.lidClosed == false { return .laptop }
            return state.posture
        }
        let current = state.posture
        if h <= PostureLimits.closedEnter || (current == .closed && h < PostureLimits.closedLeave) {
            folded = false
            pastFoldedSince = nil
            return .closed
        }
        // The dwell runs from when the angle was first seen past the threshold, roughly followed or read.
        if h > PostureLimits.foldedEnter || (side ?? h) > PostureLimits.foldedEnter {
            let since = pastFoldedSince ?? s.time
            pastFoldedSince = since
            if h > PostureLimits.foldedEnter, s.time - since >= PostureLimits.foldedDwell { folded = true }
            if firstReadingFolded(h, first: firstAngle) { folded = true }
        } else {
            pastFoldedSince = nil
        }
        if h < PostureLimits.foldedLeave { folded = false }
        guard folded else { return .laptop }
        if h >= PostureLimits.tabletEnter || (current == .tablet && h > PostureLimits.tabletLeave) { return .tablet }
        // Folded past flat but not back: a tent with the display upside down, else a stand.
        let g = lid.value ?? s.acceleration
        let share = g.length > 0 ? g.y / g.length : 0
        if share > PostureLimits.tentShare { return .tent }
        if share < -PostureLimits.tentShare { return .stand }
        return current == .tent ? .tent : .stand
    }

    /// **firstReadingFolded.** Whether the first angle known, `h`, is folded back far enough to need no dwell: at
    /// or past `PostureLimits.tabletEnter`. The dwell tells a laptop opened flat, whose hinge wobbles up to
    /// `foldedEnter`, from a fold passing it on its way; a first angle has no way before it to watch, and one
    /// 120° past the threshold is no wobble of a laptop: the device was folded back before anything was read.
    private func firstReadingFolded(_ h: Double, first: Bool) -> Bool {
        first && h >= PostureLimits.tabletEnter
    }

    /// Why `posture` follows `previous` at `s`: the branch of `decide` that gave it, and where the fold was read.
    private func explain(_ posture: Posture, after previous: Posture?, _ s: Sample, baseHere: Bool) -> PostureReason {
        if s.lidClosed == true { return PostureReason(source: .switches, rule: .lidSwitch) }
        guard hinge != nil else {
            let rule: PostureReason.Rule = hadBase && !baseHere && s.hinge == nil ? .baseLostAfter
                : s.tabletMode != nil ? .tabletModeSwitch : .lidSwitch
            return PostureReason(source: .switches, rule: rule)
        }
        let rule: PostureReason.Rule
        switch posture {
        case .closed: rule = .closedEnter
        case .laptop: rule = previous == nil || previous == .closed ? .closedLeave : .foldedLeave
        case .tablet: rule = .tabletEnter
        case .stand, .tent:
            rule = previous == .tablet ? .tabletLeave : previous == .stand || previous == .tent ? .tentShare : .foldedEnter
        }
        return PostureReason(source: hingeSource, rule: rule)
    }

    /// The hinge to publish: the angle in force in whole degrees, moved only in steps of `hingeStep` (or at a
    /// change of posture); nil while it cannot be read.
    private func published(_ posture: Posture?) -> Int? {
        guard let h = hinge, readable else { return nil }
        let rounded = Int(h.rounded())
        guard let current = state.hinge, posture == state.posture else { return rounded }
        return abs(rounded - current) >= PostureLimits.hingeStep ? rounded : current
    }

    /// The base's own rotation, read as the display's is: the quadrant of gravity's in-plane direction, changed
    /// only well past the quadrant's edge, and held while the base lies flat.
    private func baseRotation(_ b: Vector3, current: Rotation?) -> Rotation? {
        let l = b.length
        guard l > 0, abs(b.z) / l < PostureLimits.baseFlatShare else { return current }
        let nearest = Rotation.nearest(b)
        guard let current, nearest != current else { return nearest }
        let angle = Angles.atan2Degrees(b.x, -b.y)
        let offset = abs(((angle - Double(current.degrees)).truncatingRemainder(dividingBy: 360) + 540)
            .truncatingRemainder(dividingBy: 360) - 180)
        return offset > 45 + PostureLimits.baseRotationMargin ? nearest : current
    }
}
