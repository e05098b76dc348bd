import RotationProtocol

/// Decides how a convertible is folded from the sources it has, most trusted first: a hinge sensor, the display
/// and base accelerometers together, the tablet-mode and lid switches.
///
/// A value with no I/O, fed the same samples as the orientation engine (`Sample.base`, `hinge`, `tabletMode`,
/// `lidClosed`). The hinge angle read from the two accelerometers is held, not guessed, while it cannot be read:
/// while either part is accelerated (carried, shaken, typed on) and while the hinge points up. Closed and
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
    /// Whether the keyboard is folded out of use (past `foldedEnter`, until back under `foldedLeave`).
    private var folded = false
    /// Since when the angle has stayed past `foldedEnter`, while not yet folded.
    private var pastFoldedSince: Double?

    /// Creates an estimate that knows nothing yet.
    public init() {}

    /// Whether the device has told anything of a fold: a base part, a hinge sensor or a switch.
    public var hasSource: Bool { state.posture != nil || hadBase }

    /// Whether more samples of the same pose would change nothing: no base, or both panels read steadily and
    /// their smoothed readings have caught up.
    public func isSettled(at t: Double) -> Bool {
        !hadBase || (lid.steady(for: PostureLimits.settleTime, at: t) && base.steady(for: PostureLimits.settleTime, at: t)
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
            base.reset()
            next.baseRotation = nil
        }
        next.posture = decide(s, baseHere: baseHere)
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
        var previous = side ?? hinge
        // With no history, a switch says which end an ambiguous reading is at; without one, closed is likelier.
        if previous == nil, s.tabletMode == true { previous = 360 }
        if s.lidClosed == true { previous = 0 }
        hinge = HingeGeometry.resolve(raw, previous: previous, stableRange: PostureLimits.stableRange)
        side = hinge
    }

    /// Follows the side of flat the hinge is on from the latest raw readings while both are mostly gravity.
    private mutating func followSide(_ s: Sample) {
        guard let b = s.base, lid.rest > 0, base.rest > 0,
              abs(s.acceleration.length - lid.rest) <= PostureLimits.sideDeviation * lid.rest,
              abs(b.length - base.rest) <= PostureLimits.sideDeviation * base.rest,
              let raw = HingeGeometry.angle(lid: s.acceleration, base: b, minimumAcross: PostureLimits.readableAcross)
        else { return }
        side = HingeGeometry.resolve(raw, previous: side ?? hinge, stableRange: PostureLimits.stableRange)
    }

    /// The posture the sources give, with each threshold's hysteresis; the current one while nothing decides.
    private mutating func decide(_ s: Sample, baseHere: Bool) -> Posture? {
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
