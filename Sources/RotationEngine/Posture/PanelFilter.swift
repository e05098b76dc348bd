import RotationProtocol

/// One panel's accelerometer, smoothed, and whether its latest reading is gravity alone.
///
/// A reading whose length strays from what the sensor reads at rest is acceleration: the device is carried, shaken
/// or typed on, and the reading says nothing reliable about the fold. What the sensor reads at rest is learned from
/// its own readings, so a sensor with a wrong scale is judged by its own 1 g; and since a sensor with offsets reads a
/// different length in each pose, a new length that holds still (lengths close to one another for
/// `PostureLimits.calmTime`) becomes the rest length, where a carried or shaken sensor never holds still that long.
/// The first rest length too is learned from readings that hold still, never from the first reading alone
/// (`stillRest`).
struct PanelFilter: Sendable {
    /// The smoothed reading, or nil before the first.
    private(set) var value: Vector3?
    /// What the sensor reads at rest.
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
    /// The run of readings the first rest length is learned from: since when, the sum of their lengths and how
    /// many; nil once it is learned (`stillRest`).
    private var stillRun: (since: Double, sum: Double, count: Double)?

    /// Takes one reading at time `t`.
    mutating func follow(_ a: Vector3, at t: Double) {
        guard a.isUsable else { return }
        let l = a.length
        let dt = t - lastTime
        lastTime = t
        let learning = stillRun != nil
        guard let v = value, dt.isFinite, dt >= 0, dt < PostureLimits.maxGap, stillRest(l, at: t) else {
            value = a
            rest = l
            steady = true
            steadySince = t
            recent = l
            calmSince = t
            stillRun = (t, l, 1)
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
            if !learning { rest += (l - rest) * (dt / (PostureLimits.restTime + dt)) }
            let next = v + (a - v) * (dt / (PostureLimits.smoothingTime + dt))
            value = next
            caughtUp = (a - next).length <= PostureLimits.caughtUp * rest
        } else {
            steadySince = nil
        }
    }

    /// **stillRest.** Whether the reading of length `l` at `t` joins the run of readings the first rest length is
    /// learned from; false starts the run afresh from this reading. A reading's length is what the sensor reads for
    /// 1 g only if the device was not accelerated, and one reading alone cannot tell: a device picked up or shaken
    /// as the capture starts reads more or less than 1 g, and taken as the rest length such a reading would make
    /// the next ordinary readings count as acceleration. Readings that hold still agree with one another; so the
    /// rest length is, until it is learned, the mean of a run of readings each within
    /// `PostureLimits.restDeviation` of the mean before it, and it is learned once that run has lasted
    /// `PostureLimits.settleTime`, the time the angle waits for anyway. A reading further off (the first one was
    /// made while moving, or this one is) starts the run again from itself.
    private mutating func stillRest(_ l: Double, at t: Double) -> Bool {
        guard let run = stillRun else { return true }
        let mean = run.sum / run.count
        guard abs(l - mean) <= PostureLimits.restDeviation * mean else { return false }
        let joined = (since: run.since, sum: run.sum + l, count: run.count + 1)
        rest = joined.sum / joined.count
        stillRun = t - run.since >= PostureLimits.settleTime ? nil : joined
        return true
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

    /// Forgets the sensor, as when it goes away.
    mutating func reset() { self = PanelFilter() }
}
