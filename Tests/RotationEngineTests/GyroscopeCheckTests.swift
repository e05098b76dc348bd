import Testing
@testable import RotationEngine
import RotationProtocol

/// A gyroscope whose readings the accelerometer does not bear out must never make a rotation wrong, and is
/// dropped once the engine can tell.
@Suite("Gyroscope checked against the accelerometer")
struct GyroscopeCheckTests {
    /// Upright, then a quarter turn at a time through every rotation, each pose held 3 s.
    static func fourPoses(seed: UInt64, rate: Double = 50) -> SyntheticTrace {
        var trace = SyntheticTrace(rate: rate, angle: 0, elevation: 25, withGyro: true, seed: seed)
        // A sensor's bias: a fraction of a degree per second about each axis.
        trace.gyroBias = Vector3(0.004, -0.003, 0.002)
        trace.hold(3)
        for _ in 0..<4 {
            trace.turn(by: 90, over: 0.6)
            trace.hold(3)
        }
        return trace
    }

    /// The samples with every gyroscope reading multiplied by `factor`.
    static func scaled(_ samples: [Sample], by factor: Double) -> [Sample] {
        samples.map { s in
            var s = s
            s.angularVelocity = s.angularVelocity.map { $0 * factor }
            return s
        }
    }

    static func run(_ samples: [Sample]) -> (published: [Published], engine: OrientationEngine) {
        var engine = OrientationEngine()
        var out: [Published] = []
        for s in samples {
            if let state = engine.process(s) { out.append(Published(time: s.time, state: state)) }
        }
        return (out, engine)
    }

    @Test("a sound gyroscope is never found wrong: held, turned, shaken, walked with and spun flat on a table", arguments: [10.0, 50, 100])
    func soundGyroscopeKept(rate: Double) {
        var trace = Self.fourPoses(seed: 5, rate: rate)
        trace.shake(3, amplitude: 6, frequency: 5)
        trace.hold(1)
        trace.walk(6)
        trace.tilt(to: 88, over: 1)
        trace.turn(by: 270, over: 1.2)
        trace.hold(2)
        let (published, engine) = Self.run(trace.samples)
        #expect(engine.gyroscopeFinding == nil, "\(String(describing: engine.gyroscopeFinding))")
        #expect(published.last?.state.inputs == .accelGyro)
    }

    @Test("a gyroscope reading 1000 times too fast is found while the device is held still, and no rotation is wrong")
    func thousandTimesTooFast() {
        let trace = Self.fourPoses(seed: 11)
        let (published, engine) = Self.run(Self.scaled(trace.samples, by: 1000))
        guard case .rateWhileStill(let rate)? = engine.gyroscopeFinding else {
            Issue.record("no finding: \(String(describing: engine.gyroscopeFinding))")
            return
        }
        #expect(rate > 100, "\(rate) °/s")
        #expect(published.rotations == [.normal, .leftUp, .bottomUp, .rightUp, .normal], "\(published.rotationChanges)")
        #expect(published.last?.state.inputs == .accel)
    }

    @Test("a gyroscope reading 1000 times too slow is found at the first turn it does not follow, and no rotation is wrong or later than the accelerometer's")
    func thousandTimesTooSlow() {
        let trace = Self.fourPoses(seed: 12)
        let (published, engine) = Self.run(Self.scaled(trace.samples, by: 0.001))
        guard case .turnNotFollowed(let gyro, let accel, _)? = engine.gyroscopeFinding else {
            Issue.record("no finding: \(String(describing: engine.gyroscopeFinding)); \(published.rotationChanges)")
            return
        }
        #expect(gyro < 5 && accel > 45, "\(gyro)° against \(accel)°")
        #expect(published.rotations == [.normal, .leftUp, .bottomUp, .rightUp, .normal], "\(published.rotationChanges)")
        // Each change comes no later than the accelerometer alone makes it.
        var alone = trace.samples
        for i in alone.indices { alone[i].angularVelocity = nil }
        let accelOnly = Self.run(alone).published.rotationChanges
        for (fused, accel) in zip(published.rotationChanges, accelOnly) {
            #expect(fused.rotation == accel.rotation && fused.time <= accel.time + 0.021, "\(fused) against \(accel)")
        }
    }

    @Test("once a gyroscope reading 1000 times too slow is found wrong, the accelerometer alone decides that turn and every later one as soon as it would have on its own", arguments: [0.0, 25, 50])
    func handOverAtAccelerometerLatency(elevation: Double) {
        for seed: UInt64 in 1...6 {
            var trace = SyntheticTrace(rate: 50, angle: 0, elevation: elevation, noise: 0.15, withGyro: true, seed: seed)
            trace.hold(3)
            // A fast three-quarter turn (600°/s) past two quadrants, quarter and half turns.
            for (turn, seconds) in [(270.0, 0.45), (-90, 0.5), (90, 0.3), (90, 0.5), (180, 0.5), (-270, 0.45)] {
                trace.turn(by: turn, over: seconds)
                trace.hold(3)
            }
            let (published, engine) = Self.run(Self.scaled(trace.samples, by: 0.001))
            #expect(engine.gyroscopeFinding != nil, "seed \(seed)")
            var alone = trace.samples
            for i in alone.indices { alone[i].angularVelocity = nil }
            let accelOnly = Self.run(alone).published.rotationChanges
            #expect(published.rotationChanges.map(\.rotation) == accelOnly.map(\.rotation), "seed \(seed)")
            for (fused, accel) in zip(published.rotationChanges, accelOnly) {
                #expect(fused.time <= accel.time + 0.001, "seed \(seed): \(fused) against \(accel)")
            }
        }
    }

    @Test("a gyroscope whose axes do not match the accelerometer's (x and y swapped) never makes a rotation wrong")
    func mismatchedFrame() {
        let trace = Self.fourPoses(seed: 13)
        let swapped = trace.samples.map { s -> Sample in
            var s = s
            s.angularVelocity = s.angularVelocity.map { Vector3($0.y, $0.x, -$0.z) }
            return s
        }
        let (published, engine) = Self.run(swapped)
        #expect(published.rotations == [.normal, .leftUp, .bottomUp, .rightUp, .normal], "\(published.rotationChanges)")
        #expect(engine.gyroscopeFinding != nil)
    }

    @Test("spinning flat on a table about the true vertical, with an accelerometer offset tilting the measured one 15° away, is not a rate while still")
    func flatSpinWithOffset() {
        var check = GyroscopeCheck()
        // The accelerometer reads gravity plus an offset: a direction 15° from the true vertical, fixed in the
        // device frame; the gyroscope reads a 300°/s spin about the true vertical.
        let measured = Vector3(Angles.sinDegrees(15), 0, Angles.cosDegrees(15))
        let spin = Vector3(0, 0, 300 * Angles.radiansPerDegree)
        var t = 0.0
        for _ in 0..<300 {
            t += 0.01
            check.update(time: t, dt: 0.01, accel: measured, steady: true, rate: spin)
        }
        #expect(check.finding == nil)
    }

    @Test("a reading every 0.4 s while still, as the sampling policy reads, still lets a rate while still be found")
    func slowPaceStillTest() {
        var check = GyroscopeCheck()
        let upright = Vector3(0, -1, 0.2)
        var t = 0.0
        for i in 0..<12 {
            t += 0.4
            check.restart()    // the engine restarts the turn test across each gap
            // A gyroscope reading about 1000 times its bias: rates across gravity of 3 to 4 rad/s.
            let rate = Vector3(3 + Double(i % 3) * 0.5, 0.2, Double(i % 2))
            check.update(time: t, dt: 0.4, accel: upright, steady: true, rate: rate)
        }
        guard case .rateWhileStill? = check.finding else {
            Issue.record("no finding")
            return
        }
    }
}

/// An uncalibrated sensor near flat: its offsets, not a turn, swing the in-plane direction.
@Suite("Fused decisions near flat on an uncalibrated sensor")
struct NearFlatOffsetTests {
    /// Upright, turned to right edge up (a turn the gyroscope measures as the accelerometer sees it), leaning
    /// back 30°, then hovering near flat at 72° while the hand wobbles it (the accelerometer reading a quarter
    /// of g of offset across the screen), then back to 30°. Nothing turns after the first turn.
    static func hover(offset: Vector3, seed: UInt64) -> [Sample] {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 30, withGyro: true, seed: seed)
        trace.hold(2)
        trace.turn(by: -90, over: 0.6)
        trace.hold(2)
        trace.tilt(to: 72, over: 1.2)
        for _ in 0..<3 {
            trace.tilt(to: 66, over: 0.5)
            trace.tilt(to: 73, over: 0.5)
        }
        trace.tilt(to: 30, over: 1.2)
        trace.hold(2)
        return trace.samples.map { s in
            var s = s
            s.acceleration = s.acceleration + offset
            return s
        }
    }

    @Test("offsets that carry the in-plane direction past a diagonal near flat change nothing, fused, while the gyroscope measures no turn")
    func hoverWithOffset() {
        let g = 9.80665
        let offset = Vector3(0.2 * g, 0.25 * g, 0)
        let fused = replay(Self.hover(offset: offset, seed: 31))
        #expect(fused.rotations == [.normal, .rightUp], "\(fused.rotationChanges)")
        // The accelerometer alone sees the device swing into another quadrant near flat: the trace does test
        // something the gyroscope settles.
        var lowPass = Vector3.zero
        var seen: Set<Rotation> = []
        for s in Self.hover(offset: offset, seed: 31) {
            lowPass = lowPass + (s.acceleration - lowPass) * 0.3
            let cosA = -lowPass.y, sinA = lowPass.x
            if (lowPass.x * lowPass.x + lowPass.y * lowPass.y).squareRoot() > 0.25 * lowPass.length {
                seen.insert(abs(cosA) > abs(sinA) ? (cosA > 0 ? .normal : .bottomUp) : (sinA > 0 ? .leftUp : .rightUp))
            }
        }
        #expect(seen.count > 1, "the offset never carried the direction out of right-up: \(seen)")
    }

    @Test("a device lifted from flat into another orientation changes at once, fused, though it turned nothing about its screen's axis")
    func liftFromFlat() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 30, withGyro: true, seed: 32)
        trace.hold(2)
        trace.tilt(to: 88, over: 1)
        trace.hold(2)
        // Lying flat, the device is picked up by another edge: the pose it reaches is left-up, leaning 30° back.
        var samples = trace.samples
        var lift = SyntheticTrace(rate: 50, angle: 90, elevation: 88, withGyro: true, seed: 33)
        lift.tilt(to: 30, over: 1)
        lift.hold(2)
        let offsetTime = samples.last!.time + 0.02
        samples += lift.samples.map { s in
            var s = s
            s.time += offsetTime
            return s
        }
        let published = replay(samples)
        #expect(published.rotations == [.normal, .leftUp], "\(published.rotationChanges)")
    }
}
