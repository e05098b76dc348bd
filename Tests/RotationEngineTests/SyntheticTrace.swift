@testable import RotationEngine
import RotationProtocol

/// Builds synthetic recordings for the engine tests: a device held at a clockwise angle and an elevation,
/// turned, tilted, shaken or left alone, sampled at any rate with jitter, dropped samples and noise.
///
/// Gravity in the device frame is g·(cos e·sin θ, −cos e·cos θ, sin e) for the clockwise angle θ and the
/// elevation e of the screen; the gyroscope, when enabled, reads the body rate that produces that motion:
/// −θ′ about z for a turn, plus the rotation about the in-plane axis for a change of elevation.
struct SyntheticTrace {
    /// Nominal samples per second.
    var rate: Double
    /// Each interval is 1/rate × (1 ± jitter/2), uniformly.
    var jitter: Double
    /// Probability that a sample is lost.
    var dropRate: Double
    /// Amplitude of the uniform noise on each accelerometer axis, m/s².
    var noise: Double
    /// Whether samples carry a gyroscope reading.
    var withGyro: Bool
    /// A constant error added to every gyroscope reading, rad/s.
    var gyroBias = Vector3.zero

    /// The samples so far.
    private(set) var samples: [Sample] = []
    /// The time of the next sample.
    private(set) var time = 0.0
    /// The current clockwise angle, degrees.
    private(set) var angle: Double
    /// The current elevation of the screen, degrees (+90 face up).
    private(set) var elevation: Double
    private var random: UInt64

    static let g = 9.80665

    init(rate: Double, angle: Double = 0, elevation: Double = 20, jitter: Double = 0, dropRate: Double = 0,
         noise: Double = 0.05, withGyro: Bool = false, seed: UInt64 = 1) {
        self.rate = rate
        self.angle = angle
        self.elevation = elevation
        self.jitter = jitter
        self.dropRate = dropRate
        self.noise = noise
        self.withGyro = withGyro
        self.random = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    /// A uniform number in [−0.5, 0.5).
    mutating func uniform() -> Double {
        random ^= random >> 12
        random ^= random << 25
        random ^= random >> 27
        return Double((random &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53) - 0.5
    }

    /// Keeps the pose for `seconds`.
    mutating func hold(_ seconds: Double) {
        let a = angle, e = elevation
        segment(seconds) { _ in (a, e) }
    }

    /// Turns clockwise by `degrees` (negative: anticlockwise) over `seconds`, easing in and out.
    mutating func turn(by degrees: Double, over seconds: Double) {
        let a = angle, e = elevation
        segment(seconds) { u in (a + degrees * SyntheticTrace.ease(u), e) }
        angle = a + degrees
    }

    /// Changes the elevation to `degrees` over `seconds`, easing in and out.
    mutating func tilt(to degrees: Double, over seconds: Double) {
        let a = angle, e = elevation
        segment(seconds) { u in (a, e + (degrees - e) * SyntheticTrace.ease(u)) }
        elevation = degrees
    }

    /// Keeps the pose while a linear acceleration of `amplitude` m/s² shakes the device in the screen plane at
    /// `frequency` Hz.
    mutating func shake(_ seconds: Double, amplitude: Double, frequency: Double) {
        let a = angle, e = elevation
        let start = time
        segment(seconds, pose: { _ in (a, e) }, extra: { t in
            let phase = 2 * Double.pi * frequency * (t - start)
            return Vector3(amplitude * SyntheticTrace.sin(phase), amplitude * 0.7 * SyntheticTrace.sin(1.7 * phase + 1), 0)
        })
    }

    /// Walking: a vertical bounce of `amplitude` m/s² at two steps a second and a small sideways sway of the
    /// angle and elevation (a few degrees), at the current pose.
    mutating func walk(_ seconds: Double, amplitude: Double = 2.5) {
        let a = angle, e = elevation
        let start = time
        let up = SyntheticTrace.gravityDirection(angle: a, elevation: e)
        segment(seconds, pose: { u in
            let phase = 2 * Double.pi * 1.0 * u * seconds
            return (a + 4 * SyntheticTrace.sin(phase), e + 3 * SyntheticTrace.sin(2 * phase))
        }, extra: { t in
            let bounce = amplitude * SyntheticTrace.sin(2 * Double.pi * 2 * (t - start))
            return up * bounce
        })
    }

    /// Produces no samples for `seconds`, as when a sensor stalls.
    mutating func gap(_ seconds: Double) {
        time += seconds
    }

    /// Appends a sample exactly as given, for bad-input tests.
    mutating func append(_ sample: Sample) {
        samples.append(sample)
    }

    /// Samples the pose given by `pose(u)`, u from 0 to 1 over `seconds`, plus a linear acceleration.
    mutating func segment(_ seconds: Double, pose: (Double) -> (Double, Double),
                          extra: (Double) -> Vector3 = { _ in .zero }) {
        let end = time + seconds
        while time < end {
            let u = seconds > 0 ? (time - (end - seconds)) / seconds : 1
            let (a, e) = pose(u)
            if uniform() + 0.5 >= dropRate {
                let gravity = SyntheticTrace.gravityDirection(angle: a, elevation: e) * SyntheticTrace.g
                var reading = gravity + extra(time)
                reading = reading + Vector3(noise * uniform(), noise * uniform(), noise * uniform())
                var w: Vector3?
                if withGyro {
                    let h = 1e-4
                    let (a2, e2) = pose(min(u + h, 1))
                    let (a1, e1) = pose(max(u - h, 0))
                    let span = (min(u + h, 1) - max(u - h, 0)) * seconds
                    let da = span > 0 ? (a2 - a1) / span * Angles.radiansPerDegree : 0
                    let de = span > 0 ? (e2 - e1) / span * Angles.radiansPerDegree : 0
                    // Turn: −θ′ about z. Tilt: ω = u′ × u for the change of elevation alone.
                    let dir = SyntheticTrace.gravityDirection(angle: a, elevation: e)
                    let ca = Angles.cosDegrees(a), sa = Angles.sinDegrees(a)
                    let ce = Angles.cosDegrees(e), se = Angles.sinDegrees(e)
                    let duElevation = Vector3(-se * sa, se * ca, ce) * de
                    w = Vector3(0, 0, -da) + duElevation.cross(dir) + gyroBias
                        + Vector3(0.002 * uniform(), 0.002 * uniform(), 0.002 * uniform())
                }
                samples.append(Sample(time: time, acceleration: reading, angularVelocity: w))
            }
            time += (1 / rate) * (1 + jitter * uniform())
        }
        if !samples.isEmpty, seconds > 0 {
            let (a, e) = pose(1)
            angle = a
            elevation = e
        }
    }

    /// Unit vector of the accelerometer reading at rest for a pose.
    static func gravityDirection(angle: Double, elevation: Double) -> Vector3 {
        let ca = Angles.cosDegrees(angle), sa = Angles.sinDegrees(angle)
        let ce = Angles.cosDegrees(elevation), se = Angles.sinDegrees(elevation)
        return Vector3(ce * sa, -ce * ca, se)
    }

    static func ease(_ u: Double) -> Double {
        let v = min(max(u, 0), 1)
        return v * v * (3 - 2 * v)
    }

    static func sin(_ radians: Double) -> Double { Angles.sinDegrees(radians / Angles.radiansPerDegree) }

    /// `samples` with each accelerometer reading `count` samples late, as behind a sensor's own low-pass filter;
    /// the gyroscope's readings stay on time.
    static func accelerometerLagging(_ samples: [Sample], by count: Int) -> [Sample] {
        samples.indices.map { i in
            Sample(time: samples[i].time, acceleration: samples[max(i - count, 0)].acceleration,
                   angularVelocity: samples[i].angularVelocity)
        }
    }
}

/// One published change, and the reason the engine recorded beside it.
struct Published {
    var time: Double
    var state: DeviceState
    var reason = ChangeReason()
}

/// Feeds `samples` to a fresh engine and returns every published change.
func replay(_ samples: [Sample], configuration: EngineConfiguration = .default) -> [Published] {
    var engine = OrientationEngine(configuration: configuration)
    var out: [Published] = []
    for s in samples {
        if let state = engine.process(s) { out.append(Published(time: s.time, state: state, reason: engine.reason)) }
    }
    return out
}

extension Array where Element == Published {
    /// The published rotation changes only: (time, rotation), skipping changes that kept the rotation.
    var rotationChanges: [(time: Double, rotation: Rotation?)] {
        var out: [(time: Double, rotation: Rotation?)] = []
        var last: Rotation?? = .none
        for p in self where last != .some(p.state.rotation) {
            out.append((p.time, p.state.rotation))
            last = .some(p.state.rotation)
        }
        return out
    }

    /// The sequence of published rotations.
    var rotations: [Rotation?] { rotationChanges.map(\.rotation) }
}
