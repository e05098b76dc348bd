@testable import RotationEngine
import RotationProtocol

/// Builds synthetic recordings of a convertible for the posture tests: the base turned about the hinge by
/// `baseTilt` (0 lying face up), the panels `hinge` degrees apart, and the hinge itself tilted `hingeTilt`
/// degrees out of level (90 points it at the ground, as a book held on its side).
///
/// In the frame of `../shared/traces-posture/README.md`: the base reads Rx(β)·(0, 0, g) and the lid
/// Rx(β + 180° − hinge)·(0, 0, g), both scaled by cos(hingeTilt), with g·sin(hingeTilt) along the hinge (x).
struct FoldTrace {
    /// Samples per second.
    var rate = 50.0
    /// Amplitude of the uniform noise on each axis of both sensors, m/s².
    var noise = 0.05
    /// The samples so far.
    private(set) var samples: [Sample] = []
    private(set) var time = 0.0
    private(set) var hinge: Double
    private(set) var baseTilt: Double
    private(set) var hingeTilt = 0.0
    /// Whether samples carry a base reading (false: a detachable without its base).
    var baseAttached = true
    /// The tablet-mode and lid switches each sample carries, and a hinge sensor's reading.
    var tabletMode: Bool?
    var lidClosed: Bool?
    var hingeSensor: Double?
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    static let g = 9.80665

    init(hinge: Double, baseTilt: Double = 0) {
        self.hinge = hinge
        self.baseTilt = baseTilt
    }

    /// What the base and lid read for a pose.
    static func readings(hinge: Double, baseTilt: Double, hingeTilt: Double) -> (lid: Vector3, base: Vector3) {
        let c = Angles.cosDegrees(hingeTilt) * g, along = Angles.sinDegrees(hingeTilt) * g
        func rx(_ a: Double) -> Vector3 { Vector3(along, -c * Angles.sinDegrees(a), c * Angles.cosDegrees(a)) }
        return (rx(baseTilt + 180 - hinge), rx(baseTilt))
    }

    /// Keeps the pose for `seconds`.
    mutating func hold(_ seconds: Double) { move(seconds) { _, _ in } }

    /// Moves linearly to the given pose over `seconds`; nil keeps a value.
    mutating func move(to hinge: Double? = nil, baseTilt: Double? = nil, hingeTilt: Double? = nil, over seconds: Double) {
        let h0 = self.hinge, b0 = self.baseTilt, t0 = self.hingeTilt
        let h1 = hinge ?? h0, b1 = baseTilt ?? b0, t1 = hingeTilt ?? t0
        move(seconds) { trace, u in
            trace.hinge = h0 + (h1 - h0) * u
            trace.baseTilt = b0 + (b1 - b0) * u
            trace.hingeTilt = t0 + (t1 - t0) * u
        }
        (self.hinge, self.baseTilt, self.hingeTilt) = (h1, b1, t1)
    }

    /// Shakes both sensors alike (the device carried or typed on) with `amplitude` m/s² at `frequency` Hz.
    mutating func shake(_ seconds: Double, amplitude: Double, frequency: Double = 3) {
        move(seconds, extra: { t in
            let s = Angles.sinDegrees(360 * frequency * t) * amplitude
            return Vector3(s * 0.5, s, -s * 0.7)
        }) { _, _ in }
    }

    /// Swings the hinge between `low` and `high` degrees every `period` seconds, for `seconds`.
    mutating func wobble(_ seconds: Double, between low: Double, and high: Double, period: Double = 0.8) {
        let start = time
        move(seconds) { trace, _ in
            let u = Angles.sinDegrees(360 * (trace.time - start) / period)
            trace.hinge = (low + high) / 2 + (high - low) / 2 * u
        }
    }

    private mutating func move(_ seconds: Double, extra: (Double) -> Vector3 = { _ in .zero },
                               pose: (inout FoldTrace, Double) -> Void) {
        let start = time, end = time + seconds
        while time < end {
            pose(&self, seconds > 0 ? (time - start) / seconds : 1)
            emit(extra(time))
            time += 1 / rate
        }
    }

    private mutating func emit(_ extra: Vector3) {
        let (lid, base) = FoldTrace.readings(hinge: hinge, baseTilt: baseTilt, hingeTilt: hingeTilt)
        var s = Sample(time: time, acceleration: lid + extra + jitter())
        if baseAttached { s.base = base + extra + jitter() }
        s.tabletMode = tabletMode
        s.lidClosed = lidClosed
        s.hinge = hingeSensor
        samples.append(s)
    }

    private mutating func jitter() -> Vector3 { Vector3(uniform(), uniform(), uniform()) * noise }

    private mutating func uniform() -> Double {
        random ^= random >> 12
        random ^= random << 25
        random ^= random >> 27
        return Double((random &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53) - 0.5
    }
}
