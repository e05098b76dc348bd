import RotationProtocol

/// The accelerometer's own estimate of gravity, and, while the fused estimate decides, the accelerometer-only
/// path's own view of the turn: the state that path would have had all along, to veto a fused decision, to
/// take over when the accelerometer settles where the fused estimate does not go, and to decide from once the
/// gyroscope is found wrong.
///
/// While the accelerometer decides, its turn meter and motion hold are the decision's own
/// (`RotationDecision`); the ones here are kept only while fused.
struct AccelerometerEstimate: Sendable {
    private var lowPass = AccelerometerGravity()
    /// The accelerometer's turn meter, kept while fused.
    private(set) var meter = TurnRateMeter()
    /// `meter.rate` at the previous sample.
    private(set) var previousRate = 0.0
    /// The end of the accelerometer-only motion hold, kept while fused.
    private(set) var holdUntil: Double = -.infinity
    /// The quadrant the accelerometer alone proposes while fused, and since when.
    private(set) var candidate: Rotation?
    private(set) var candidateSince: Double = 0

    /// The estimate, m/s² in the device frame.
    var gravity: Vector3 { lowPass.gravity }

    /// Starts again from one reading.
    mutating func restart(from a: Vector3) {
        lowPass.reset(to: a)
        meter.reset()
        holdUntil = -.infinity
    }

    /// Blends in one reading.
    mutating func follow(_ sample: SampleGate.Admitted, _ c: EngineConfiguration) {
        lowPass.update(sample.acceleration, dt: sample.dt, timeConstant: c.smoothingTime)
    }

    /// Keeps the accelerometer-only path's turn meter and motion hold up while the fused estimate decides.
    mutating func shadow(_ sample: SampleGate.Admitted, _ c: EngineConfiguration) {
        let g = lowPass.gravity
        previousRate = meter.rate
        meter.update(cosA: -g.y, sinA: g.x, time: sample.time, dt: sample.dt, timeConstant: c.rateSmoothingTime,
                     limit: c.settleRate)
        if sample.moving { holdUntil = sample.time + c.motionHoldoff }
    }

    /// Whether the accelerometer-only path would call a turn over at `t`: out of its motion hold and turning
    /// slower than the settle rate for the settle time.
    func isReady(at t: Double, _ c: EngineConfiguration) -> Bool {
        t >= holdUntil && abs(meter.rate) < c.settleRate && t - meter.lastFastTime >= c.settleTime
    }

    /// Tracks the quadrant the accelerometer alone proposes, `seen`, as the accelerometer-only path tracks its
    /// own candidate: from when it is first proposed, dropped while it is the current rotation or |a| says the
    /// device is shaken.
    mutating func propose(_ seen: Rotation, current: Rotation, moving: Bool, at t: Double) {
        if seen == current || moving {
            candidate = nil
        } else if candidate != seen {
            candidate = seen
            candidateSince = t
        }
    }

    /// Forgets the proposed quadrant, once the decision has taken it over.
    mutating func dropCandidate() {
        candidate = nil
    }
}
