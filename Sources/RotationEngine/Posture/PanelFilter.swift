import RotationProtocol

/// One panel's accelerometer, smoothed, and whether its latest reading is gravity alone.
///
/// A reading whose length strays from what the part reads at rest is acceleration: the device is carried, shaken
/// or typed on, and the reading says nothing reliable about the fold. What the part reads at rest is learned from
/// its own readings, so a part with a wrong scale is judged by its own 1 g; and since a part with offsets reads a
/// different length in each pose, a new length that holds still (lengths close to one another for
/// `PostureLimits.calmTime`) becomes the rest length, where a carried or shaken part never holds still that long.
struct PanelFilter: Sendable {
    /// The smoothed reading, or nil before the first.
    private(set) var value: Vector3?
    /// What the part reads at rest.
    private(set) var rest: Double = 0
    /// Whether the latest reading was steady (its length near `rest`).
    private(set) var steady = false
    /// Whether the smoothed reading has caught up with the latest one (`PostureLimits.caughtUp`).
    private(set) var caughtUp = true
    private var lastTime = -Double.infinity
    /// Seconds since steady readings began, or nil while unsteady.
    private var steadySince: Double?
    /// A quickly following average of the readings' lengths, steady or not, and since when they have kept close
    /// to it.
    private var recent = 0.0
    private var calmSince: Double?

    /// Takes one reading at time `t`.
    mutating func follow(_ a: Vector3, at t: Double) {
        guard a.isUsable else { return }
        let l = a.length
        let dt = t - lastTime
        lastTime = t
        guard let v = value, dt.isFinite, dt >= 0, dt < PostureLimits.maxGap else {
            value = a
            rest = l
            steady = true
            steadySince = t
            recent = l
            calmSince = t
            return
        }
        noteCalm(l, dt: dt, at: t)
        steady = abs(l - rest) <= PostureLimits.restDeviation * rest
        if !steady, let since = calmSince, t - since >= PostureLimits.calmTime {
            rest = recent
            steady = abs(l - rest) <= PostureLimits.restDeviation * rest
        }
        if steady {
            if steadySince == nil { steadySince = t }
            rest += (l - rest) * (dt / (PostureLimits.restTime + dt))
            let next = v + (a - v) * (dt / (PostureLimits.smoothingTime + dt))
            value = next
            caughtUp = (a - next).length <= PostureLimits.caughtUp * rest
        } else {
            steadySince = nil
        }
    }

    /// Follows the quick average and notes whether this reading keeps close to it.
    private mutating func noteCalm(_ l: Double, dt: Double, at t: Double) {
        let calm = abs(l - recent) <= PostureLimits.calmDeviation * max(rest, 1)
        recent += (l - recent) * (dt / (PostureLimits.calmAveraging + dt))
        if !calm {
            calmSince = nil
        } else if calmSince == nil {
            calmSince = t
        }
    }

    /// Whether the readings have been steady for at least `time` seconds up to `t`.
    func steady(for time: Double, at t: Double) -> Bool {
        guard let since = steadySince else { return false }
        return t - since >= time
    }

    /// Forgets the part, as when it goes away.
    mutating func reset() { self = PanelFilter() }
}
