import RotationProtocol

/// Measures how fast the device turns in the screen plane, and since when it has been turning slowly.
///
/// The rate is the signed change of the in-plane gravity angle between successive samples over the time
/// between them, smoothed by a first-order low-pass filter. Being signed, sensor noise and vibration, which
/// jitter the angle back and forth, largely cancel in the smoothed rate, while a real turn, which moves it
/// one way, adds up. "Settled" means no sample for a while has measured a rate at or above the limit.
struct TurnRateMeter: Sendable {
    /// The smoothed turn rate in degrees per second, positive clockwise.
    private(set) var rate: Double = 0
    /// The time of the last sample whose smoothed rate reached the limit (in size).
    private(set) var lastFastTime: Double = -.infinity
    private var lastX: Double = 0
    private var lastY: Double = 0
    private var primed = false

    /// Forgets the history; the next reading only primes the meter, and counts as turning.
    mutating func reset() {
        rate = 0
        lastFastTime = -.infinity
        primed = false
    }

    /// Records that the device may have turned, unobserved, up to `time` (readings resumed after a gap): it
    /// counts as turning at `time`, so settling starts afresh.
    mutating func noteUnobserved(until time: Double) {
        lastFastTime = max(lastFastTime, time)
    }

    /// How much of a step's rate, `dt` seconds after the previous reading, the smoothed rate takes in.
    ///
    /// Up to one time constant it is the first-order weight dt / (τ + dt), the one the decision rules were tuned
    /// with at 50 Hz and above. Past it, what is left of the previous rate (a half at dt = τ) decays
    /// exponentially, e^−(dt/τ − 1) / 2, as a first-order filter's state does: dt / (τ + dt) alone would leave
    /// τ / (τ + dt) of it, a quarter at 10 Hz, so the first still step after a fast turn would still read as
    /// turning, 100 ms of latency for the rate filter's carry-over, not the device's (`Docs/algorithm.md`,
    /// "The turn rate").
    static func weight(dt: Double, timeConstant: Double) -> Double {
        guard timeConstant > 0 else { return 1 }
        return dt <= timeConstant ? dt / (timeConstant + dt) : 1 - 0.5 * decay(dt / timeConstant - 1)
    }

    /// e^−x for x ≥ 0: how much of a first-order filter's state is left after x time constants. The core
    /// imports no C library, so it is computed here: the series on x / 2^k ≤ 0.5, squared back k times.
    static func decay(_ x: Double) -> Double {
        guard x < 40 else { return 0 }
        var y = x, halvings = 0
        while y > 0.5 { y /= 2; halvings += 1 }
        var term = 1.0, sum = 1.0
        for i in 1...12 { term *= -y / Double(i); sum += term }
        for _ in 0..<halvings { sum *= sum }
        return sum
    }

    /// The clockwise angle in degrees from one in-plane direction to another, each given by the unnormalised
    /// (cos, sin) of its clockwise angle from upright.
    static func turn(fromCos c0: Double, sin s0: Double, toCos c1: Double, sin s1: Double) -> Double {
        Angles.atan2Degrees(c0 * s1 - s0 * c1, c0 * c1 + s0 * s1)
    }

    /// The clockwise angle in degrees by which the in-plane direction of gravity turns from `a` to `b`.
    static func turn(from a: Vector3, to b: Vector3) -> Double {
        turn(fromCos: -a.y, sin: a.x, toCos: -b.y, sin: b.x)
    }

    /// Records the in-plane gravity components at `time`, `dt` seconds after the previous reading.
    ///
    /// `cosA` and `sinA` are the in-plane components, unnormalised, of the clockwise angle from upright.
    mutating func update(cosA: Double, sinA: Double, time: Double, dt: Double, timeConstant: Double, limit: Double) {
        if primed, dt > 0 {
            let step = TurnRateMeter.turn(fromCos: lastX, sin: lastY, toCos: cosA, sin: sinA)
            rate += (step / dt - rate) * TurnRateMeter.weight(dt: dt, timeConstant: timeConstant)
        } else if !primed {
            // Nothing is known about motion before the first reading: count it as turning.
            lastFastTime = time
        }
        primed = true
        lastX = cosA
        lastY = sinA
        if abs(rate) >= limit { lastFastTime = time }
    }

    /// Records a turn rate measured directly, for example by a gyroscope, in degrees per second.
    mutating func update(measuredRate: Double, cosA: Double, sinA: Double, time: Double, dt: Double,
                         timeConstant: Double, limit: Double) {
        if primed, dt > 0 {
            rate += (measuredRate - rate) * (dt / (timeConstant + dt))
        } else if !primed {
            // As for a derived rate, the first reading counts as turning.
            rate = measuredRate
            lastFastTime = time
        }
        primed = true
        lastX = cosA
        lastY = sinA
        if abs(rate) >= limit { lastFastTime = time }
    }
}
