// Measures the orientation engine alone: samples per second on one core, accelerometer-only and fused.
//
// A deterministic synthetic recording (upright, turns by a quarter and a half, a spell lying flat, sensor
// noise) is generated once, then fed to fresh engines again and again for at least `--seconds` of wall time.
// The number of published changes is printed, so the work cannot be optimised away.
import Glibc
import RotationEngine
import RotationProtocol
import RotationSystem

/// A small deterministic generator (xorshift64*), so every run measures the same input.
struct Noise {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let v = state &* 0x2545_F491_4F6C_DD1D
        return Double(v >> 11) / Double(1 << 53) - 0.5
    }
}

/// Ten seconds at 100 Hz: upright, a quarter turn, a half turn, flat on a table, lifted, back upright.
func makeRecording(withGyro: Bool) -> [Sample] {
    let g = 9.80665, rate = 100.0
    var noise = Noise()
    // (time, clockwise angle in degrees, elevation in degrees) waypoints; linear in between.
    let path: [(Double, Double, Double)] = [
        (0, 0, 20), (2, 0, 20), (2.5, 90, 20), (4, 90, 25), (4.7, 270, 25), (6, 270, 25),
        (6.6, 270, 88), (7.6, 270, 88), (8.2, 0, 20), (10, 0, 20),
    ]
    var out: [Sample] = []
    var k = 0
    var previousAngle = 0.0
    for i in 0..<Int(10 * rate) {
        let t = Double(i) / rate
        while k + 1 < path.count - 1 && t >= path[k + 1].0 { k += 1 }
        let (t0, a0, e0) = path[k], (t1, a1, e1) = path[k + 1]
        let u = min(max((t - t0) / (t1 - t0), 0), 1)
        let angle = a0 + (a1 - a0) * u, elevation = e0 + (e1 - e0) * u
        let ce = Angles.cosDegrees(elevation), se = Angles.sinDegrees(elevation)
        let ca = Angles.cosDegrees(angle), sa = Angles.sinDegrees(angle)
        let a = Vector3(g * ce * sa + 0.1 * noise.next(), -g * ce * ca + 0.1 * noise.next(), g * se + 0.1 * noise.next())
        var w: Vector3?
        if withGyro {
            let turn = (angle - previousAngle) * rate * Angles.radiansPerDegree
            w = Vector3(0.01 * noise.next(), 0.01 * noise.next(), -turn + 0.01 * noise.next())
        }
        previousAngle = angle
        out.append(Sample(time: t, acceleration: a, angularVelocity: w))
    }
    return out
}

/// Runs the recording through fresh engines for at least `minimum` seconds; returns samples per second.
func measure(_ samples: [Sample], minimum: Double) -> (rate: Double, changes: Int, passes: Int) {
    var changes = 0
    var processed = 0
    var passes = 0
    let start = MonotonicClock.now()
    var elapsed = 0.0
    repeat {
        for _ in 0..<20 {
            var engine = OrientationEngine()
            for s in samples where engine.process(s) != nil { changes += 1 }
            processed += samples.count
            passes += 1
        }
        elapsed = MonotonicClock.now() - start
    } while elapsed < minimum
    return (Double(processed) / elapsed, changes, passes)
}

var seconds = 2.0
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    if a == "--seconds", let v = arguments.popFirst().flatMap(Double.init), v > 0 {
        seconds = v
    } else {
        print("usage: engine-bench [--seconds S]   (S: minimum wall time per measurement, default 2)")
        exit(a == "-h" || a == "--help" ? 0 : 2)
    }
}

for (name, gyro) in [("accelerometer only", false), ("accelerometer + gyroscope", true)] {
    let samples = makeRecording(withGyro: gyro)
    let r = measure(samples, minimum: seconds)
    let millions = (r.rate / 1e4).rounded() / 100
    print("\(name): \(millions) million samples/s on one core (\(r.passes) passes of \(samples.count) samples, \(r.changes / r.passes) published changes each)")
}
