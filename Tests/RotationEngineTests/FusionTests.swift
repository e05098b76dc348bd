import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Gyroscope fusion")
struct FusionTests {
    @Test("with a gyroscope the published state says accel+gyro; without one, accel")
    func inputsReported() {
        var fused = SyntheticTrace(rate: 100, withGyro: true)
        fused.hold(1)
        #expect(replay(fused.samples).last?.state.inputs == .accelGyro)
        var plain = SyntheticTrace(rate: 100, withGyro: false)
        plain.hold(1)
        #expect(replay(plain.samples).last?.state.inputs == .accel)
    }

    @Test("a half turn publishes only its end, with or without a gyroscope, at every rate")
    func halfTurn() {
        for gyro in [false, true] {
            for rate in [10.0, 50, 100, 400] {
                var trace = SyntheticTrace(rate: rate, angle: 90, withGyro: gyro, seed: 5)
                trace.hold(1)
                trace.turn(by: 180, over: 0.7)
                let arrived = trace.time
                trace.hold(1)
                let changes = replay(trace.samples).rotationChanges
                #expect(changes.map(\.rotation) == [.leftUp, .rightUp], "gyro \(gyro), \(rate) Hz")
                if gyro, rate >= 50, let t = changes.last?.time {
                    #expect(t - arrived < 0.08, "gyro at \(rate) Hz: published \(t - arrived) s after arriving")
                }
            }
        }
    }

    @Test("shaking does not turn the rotation, with or without a gyroscope")
    func shake() {
        for gyro in [false, true] {
            for angle in [0.0, 90, 270] {
                var trace = SyntheticTrace(rate: 100, angle: angle, withGyro: gyro, seed: 11)
                trace.hold(1)
                trace.shake(3, amplitude: 12, frequency: 4)
                trace.hold(1)
                let expected = Rotation(degrees: Int(angle))
                #expect(replay(trace.samples).rotations == [expected], "gyro \(gyro), angle \(angle)")
            }
        }
    }

    @Test("walking does not turn the rotation, with or without a gyroscope")
    func walking() {
        for gyro in [false, true] {
            for angle in [0.0, 270] {
                var trace = SyntheticTrace(rate: 50, angle: angle, withGyro: gyro, seed: 13)
                trace.hold(1)
                trace.walk(10, amplitude: 3)
                let expected = Rotation(degrees: Int(angle))
                #expect(replay(trace.samples).rotations == [expected], "gyro \(gyro), angle \(angle)")
            }
        }
    }

    @Test("with a gyroscope a turn made while walking hard is published while still walking; the accelerometer alone must wait")
    func turnWhileWalking() {
        // Walking with a strong bounce that keeps |a| outside the motion tolerance most of the time.
        func trace(gyro: Bool) -> (samples: [Sample], turnEnd: Double) {
            var t = SyntheticTrace(rate: 100, angle: 0, withGyro: gyro, seed: 17)
            t.hold(1)
            let start = t.time
            let e = t.elevation
            let angle = { (time: Double) in 90 * SyntheticTrace.ease(min((time - start) / 4 * 8, 1)) }
            // The bounce is vertical in the world: along gravity, whichever way the device is turned.
            t.segment(4, pose: { u in (angle(start + 4 * u), e) }, extra: { time in
                SyntheticTrace.gravityDirection(angle: angle(time), elevation: e) * (5 * SyntheticTrace.sin(2 * Double.pi * 2 * (time - start)))
            })
            return (t.samples, start + 0.5)
        }
        let fused = trace(gyro: true)
        let changes = replay(fused.samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp])
        #expect((changes.last?.time ?? 99) < fused.turnEnd + 0.2)
        let plain = trace(gyro: false)
        let plainChanges = replay(plain.samples).rotationChanges
        #expect(plainChanges.filter { $0.time < plain.turnEnd + 0.2 }.map(\.rotation) == [.normal])
    }

    @Test("a biased gyroscope cannot turn a device lying still, upright or flat, by itself")
    func biasDoesNotTurn() {
        for (elevation, tilt) in [(10.0, Tilt.vertical), (88, .faceUp)] {
            for bias in [Vector3(0, 0, 0.2), Vector3(0.3, -0.2, 0.5)] {
                var trace = SyntheticTrace(rate: 100, angle: 0, elevation: elevation, withGyro: true, seed: 19)
                trace.gyroBias = bias
                trace.hold(60)
                let published = replay(trace.samples)
                let label = "elevation \(elevation), bias \(bias)"
                #expect(published.rotations == [elevation < 75 ? .normal : nil], "\(label)")
                #expect(published.allSatisfy { $0.state.tilt == tilt }, "\(label)")
                #expect(published.last?.state.inputs == .accelGyro)
            }
        }
    }

    @Test("a gyroscope bias larger than biasRateLimit is learned while the device is still; without learning the estimate stays off, and only the accelerometer's veto keeps the tilt right")
    func largeBiasLearned() throws {
        // Held still, upright at 12°, with 0.6 rad/s of bias about x (above biasRateLimit, 30°/s ≈ 0.52 rad/s)
        // and some about z. Unlearned, the x bias holds the estimate about 17° off, so the elevation reads
        // near 29° and the tilt class becomes tilted-up.
        let bias = Vector3(0.6, 0, 0.25)
        var trace = SyntheticTrace(rate: 100, angle: 0, elevation: 12, withGyro: true, seed: 37)
        trace.gyroBias = bias
        trace.hold(60)
        var engine = OrientationEngine()
        var states: [(time: Double, state: DeviceState)] = []
        for s in trace.samples {
            _ = engine.process(s)
            states.append((s.time, engine.state))
        }
        // About the axes perpendicular to gravity, the bias is learned; gravity is almost along −y here.
        #expect(abs(engine.gyroBias.x - bias.x) < 0.02, "learned \(engine.gyroBias)")
        #expect(abs(engine.gyroBias.z - bias.z) < 0.02, "learned \(engine.gyroBias)")
        let settled = states.filter { $0.time > 20 }
        #expect(settled.allSatisfy { $0.state.tilt == .vertical && $0.state.rotation == .normal && $0.state.inputs == .accelGyro })

        var unlearned = EngineConfiguration.default
        try unlearned.set("biasTime", to: 1e9)
        var control = OrientationEngine(configuration: unlearned)
        for s in trace.samples { _ = control.process(s) }
        // Unlearned, the x bias holds the fused estimate about 17° off, where its elevation reads tilted-up; the
        // tilt class changes only where the accelerometer agrees, so it stays vertical.
        let upright = Vector3(0, -Angles.cosDegrees(12), Angles.sinDegrees(12))
        func degreesOff(_ g: Vector3) -> Double {
            Angles.atan2Degrees(g.cross(upright).length, g.dot(upright))
        }
        #expect(degreesOff(control.fusedGravity) > 10, "\(control.fusedGravity)")
        #expect(degreesOff(engine.fusedGravity) < 3, "\(engine.fusedGravity)")
        #expect(control.state.tilt == .vertical && control.state.rotation == .normal)
    }

    @Test("the gyroscope bias is learned while the device is still, so turns afterwards are measured without it")
    func biasLearned() {
        var estimator = GyroGravityEstimator()
        let g = 9.80665
        let upright = Vector3(0, -g, 0)
        let bias = Vector3(0.05, -0.03, 0.15)
        estimator.reset(to: upright, magnitude: g)
        for _ in 0..<3000 {   // 30 s at 100 Hz
            estimator.update(acceleration: upright, angularVelocity: bias, dt: 0.01, magnitude: g, weight: 1,
                             proportionalGain: 2, integralGain: 0.5)
        }
        // About the two axes perpendicular to gravity (x and z here) the bias is observable and learned.
        #expect(abs(estimator.bias.x - bias.x) < 0.005)
        #expect(abs(estimator.bias.z - bias.z) < 0.005)
        // The estimate stays on gravity.
        let u = estimator.gravity * (1 / estimator.gravity.length)
        #expect(u.y < -0.999)
    }

    @Test("the fused estimate follows a turn from the gyroscope alone, exactly, even at 5 Hz")
    func integrationExact() {
        var estimator = GyroGravityEstimator()
        let g = 9.80665
        estimator.reset(to: Vector3(0, -g, 0), magnitude: g)
        // A quarter turn clockwise (−z) in five 0.2 s steps of 1.5708/1 rad/s, with no accelerometer weight.
        for _ in 0..<5 {
            estimator.update(acceleration: Vector3(0, -g, 0), angularVelocity: Vector3(0, 0, -Double.pi / 2), dt: 0.2,
                             magnitude: g, weight: 0, proportionalGain: 2, integralGain: 0)
        }
        // Left edge up reads (+g, 0, 0).
        #expect(abs(estimator.gravity.x - g) < 1e-3)
        #expect(abs(estimator.gravity.y) < 1e-3)
    }

    @Test("when the gyroscope stops mid-trace the engine falls back to the accelerometer without a gap and keeps working")
    func gyroDropsOut() {
        var trace = SyntheticTrace(rate: 100, angle: 0, withGyro: true, seed: 23)
        trace.hold(1)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        let dropAt = trace.time
        trace.withGyro = false
        trace.hold(1)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        trace.withGyro = true
        trace.hold(0.5)
        trace.turn(by: -180, over: 0.7)
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [.normal, .leftUp, .bottomUp, .normal])
        // The switch to the accelerometer is published once it has held past the gyroscope timeout, rotation
        // unchanged.
        let fallback = published.first { $0.time > dropAt && $0.state.inputs == .accel }
        #expect(fallback.map { $0.time - dropAt <= EngineConfiguration.default.gyroTimeout + Decision.inputsHoldTime + 0.02 } == true)
        #expect(fallback?.state.rotation == .leftUp)
        // And back to fused once readings return.
        #expect(published.last?.state.inputs == .accelGyro)
    }

    @Test("an occasional missing gyroscope reading does not switch the inputs back and forth")
    func occasionalMissingReading() {
        var trace = SyntheticTrace(rate: 100, angle: 270, withGyro: true, seed: 29)
        trace.hold(3)
        let samples = trace.samples.enumerated().map { i, s in
            i % 7 == 3 ? Sample(time: s.time, acceleration: s.acceleration) : s
        }
        let published = replay(samples)
        #expect(published.count == 1)
        #expect(published.first?.state.inputs == .accelGyro)
    }

    @Test("a change of inputs is published only once it has held for 100 ms: readings that stop just past gyroTimeout and resume 20 ms later change nothing; readings that stop for good are reported once")
    func inputsHold() {
        var trace = SyntheticTrace(rate: 100, angle: 90, withGyro: true, seed: 31)
        trace.hold(4)
        // No reading after 1.0 s until 1.28 s: the samples at 1.26 and 1.27 s, more than gyroTimeout after the last
        // reading, are decided from the accelerometer alone, for 20 ms.
        let gap = trace.samples.map { s in s.time > 1.005 && s.time < 1.275 ? Sample(time: s.time, acceleration: s.acceleration) : s }
        let held = replay(gap)
        #expect(held.map(\.state.inputs) == [.accelGyro], "\(held.map { ($0.time, $0.state.inputs) })")
        // Without the rule, that gap publishes two states that differ only in their inputs.
        var off = EngineConfiguration.default
        off.disabledRules = [.inputsHold]
        let flapping = replay(gap, configuration: off)
        #expect(flapping.map(\.state.inputs) == [.accelGyro, .accel, .accelGyro], "\(flapping.map { ($0.time, $0.state.inputs) })")
        #expect(Set(flapping.map(\.state.rotation)) == [.leftUp])
        // Readings that stop for good: the fall-back goes out once it has held 100 ms past gyroTimeout.
        let stopped = trace.samples.map { s in s.time > 2.005 ? Sample(time: s.time, acceleration: s.acceleration) : s }
        let fallback = replay(stopped)
        #expect(fallback.map(\.state.inputs) == [.accelGyro, .accel])
        if let t = fallback.last?.time { #expect(t > 2.35 && t < 2.39, "the fall-back was published at \(t) s") }
    }

    @Test("NaN gyroscope readings are treated as missing")
    func nanGyroIgnored() {
        var trace = SyntheticTrace(rate: 100, angle: 90, withGyro: true)
        trace.hold(1)
        let samples = trace.samples.map { Sample(time: $0.time, acceleration: $0.acceleration, angularVelocity: Vector3(.nan, 0, 0)) }
        let published = replay(samples)
        #expect(published.rotations == [.leftUp])
        #expect(published.last?.state.inputs == .accel)
    }

    @Test("a gyroscope dropout in the middle of a fast turn adds no phantom turn")
    func dropoutMidTurn() {
        for rate in [50.0, 100, 200] {
            // A quarter turn clockwise over 0.3 s peaks at 450°/s halfway; the readings stop there for 0.22 s,
            // within gyroTimeout, so the fused path stays in use. Carrying on at the last rate would take the
            // estimate past 135° and publish bottom-up.
            var trace = SyntheticTrace(rate: rate, angle: 0, elevation: 10, withGyro: true, seed: 41)
            trace.hold(1)
            let turnStart = trace.time
            trace.turn(by: 90, over: 0.3)
            let turnEnd = trace.time
            trace.hold(1.5)
            let samples = trace.samples.map { s in
                s.time >= turnStart + 0.15 && s.time < turnStart + 0.37 ? Sample(time: s.time, acceleration: s.acceleration) : s
            }
            let published = replay(samples)
            #expect(published.rotations == [.normal, .leftUp], "\(rate) Hz")
            #expect(published.allSatisfy { $0.state.inputs == .accelGyro && $0.state.tilt == .vertical }, "\(rate) Hz")
            // The fused estimate never turns past where the device went (90°, clockwise from upright).
            var engine = OrientationEngine()
            var furthest = 0.0
            for s in samples {
                _ = engine.process(s)
                let g = engine.fusedGravity
                furthest = max(furthest, Angles.atan2Degrees(g.x, -g.y))
            }
            #expect(furthest < 95, "\(rate) Hz: the estimate reached \(furthest)°")
            if let t = published.rotationChanges.last?.time {
                #expect(t - turnEnd < 0.3, "\(rate) Hz: published \(t - turnEnd) s after the turn")
            }
        }
    }

    /// A 10 Hz trace with a gyroscope, thinned as the still pace reads it: from `slowFrom` on, one sample in four
    /// (0.4 s apart) until a read at or after `moveFrom`, when the device is seen moving, and every sample after
    /// that. Returns the samples read and the time of that read.
    static func readSlowly(_ samples: [Sample], slowFrom: Double, moveFrom: Double) -> (samples: [Sample], found: Double) {
        var read: [Sample] = []
        var found = Double.nan
        var skipped = 0
        for s in samples {
            if s.time < slowFrom || !found.isNaN {
                read.append(s)
            } else if skipped % 4 == 0 {
                read.append(s)
                if s.time >= moveFrom { found = s.time }
                skipped = 1
            } else {
                skipped += 1
            }
        }
        return (read, found)
    }

    @Test("a turn made between two slow reads is published at the reading that finds it where the gyroscope, confirmed by an earlier turn, reads the device at rest; an unconfirmed gyroscope, or the rule switched off, waits for the next sample")
    func finishedTurnFound() {
        func trace(confirmed: Bool) -> (samples: [Sample], found: Double, turnEnd: Double) {
            var trace = SyntheticTrace(rate: 10, angle: 0, elevation: 20, noise: 0.05, withGyro: true, seed: 43)
            trace.hold(1.5)
            if confirmed {
                // Read at the full rate: the gyroscope follows the turn the accelerometer sees.
                trace.turn(by: 90, over: 0.6)
                trace.hold(1.5)
            }
            let slowFrom = trace.time
            trace.hold(0.85)
            let turnStart = trace.time
            trace.turn(by: 90, over: 0.25)
            let turnEnd = trace.time
            trace.hold(2)
            let read = Self.readSlowly(trace.samples, slowFrom: slowFrom, moveFrom: turnStart)
            return (read.samples, read.found, turnEnd)
        }
        let sound = trace(confirmed: true)
        #expect(sound.found >= sound.turnEnd && sound.found - 0.4 < sound.turnEnd - 0.25, "the turn must lie between two reads")
        var engine = OrientationEngine()
        for s in sound.samples where s.time < sound.found { _ = engine.process(s) }
        #expect(engine.gyroscopeConfirmed, "the first turn must confirm the gyroscope")
        let changes = replay(sound.samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp, .bottomUp])
        #expect(changes.last?.time == sound.found, "published at \(changes.last?.time ?? .nan), found at \(sound.found)")
        var off = EngineConfiguration.default
        off.disabledRules = [.finishedTurnFound]
        let waited = replay(sound.samples, configuration: off).rotationChanges
        #expect(waited.map(\.rotation) == [.normal, .leftUp, .bottomUp])
        #expect((waited.last?.time ?? 0) > sound.found, "with the rule off the change waits for the next sample")
        let first = trace(confirmed: false)
        let unconfirmed = replay(first.samples).rotationChanges
        #expect(unconfirmed.map(\.rotation) == [.normal, .leftUp])
        #expect((unconfirmed.last?.time ?? 0) > first.found, "an unconfirmed gyroscope must not call the turn over")
    }

    @Test("a half turn whose intermediate quarter a slow read finds, the gyroscope confirmed and reading it under way, publishes only its end")
    func halfTurnFoundUnderWay() {
        var trace = SyntheticTrace(rate: 10, angle: 0, elevation: 20, noise: 0.05, withGyro: true, seed: 47)
        trace.hold(1.5)
        trace.turn(by: 90, over: 0.6)
        trace.hold(1.5)
        let slowFrom = trace.time
        trace.hold(0.45)
        let turnStart = trace.time
        trace.turn(by: 180, over: 0.6)
        trace.hold(2)
        let read = Self.readSlowly(trace.samples, slowFrom: slowFrom, moveFrom: turnStart)
        let g = read.samples.first { $0.time == read.found }!.acceleration
        let angle = (Angles.atan2Degrees(g.x, -g.y) + 360).truncatingRemainder(dividingBy: 360)
        #expect(angle > 90 + 60 && angle < 180 + 30, "the read must find the device past the diagonal into the intermediate quarter; reads \(angle)°")
        #expect(replay(read.samples).rotations == [.normal, .leftUp, .rightUp])
    }

    @Test("once the gyroscope is confirmed, a turn is published when it reads the device at rest, though an accelerometer that lags it still sees the turn under way; unconfirmed, the decision waits for the accelerometer")
    func confirmedGyroscopeNeedsNoSettledAccelerometer() {
        func delay(confirmed: Bool) -> (delay: Double?, rotations: [Rotation?]) {
            var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05, withGyro: true, seed: 53)
            trace.hold(1.5)
            if confirmed {
                trace.turn(by: 90, over: 0.5)
                trace.hold(1.5)
            } else {
                trace.hold(2)
            }
            trace.turn(by: 90, over: 0.3)
            let end = trace.time
            trace.hold(1.5)
            // The accelerometer's readings come 0.1 s late (five samples).
            let late = SyntheticTrace.accelerometerLagging(trace.samples, by: 5)
            // Without the turn ending (`turnEnding`), which decides while the gyroscope still reads the turn
            // braking, before the question arises.
            var c = EngineConfiguration.default
            c.disabledRules = [.turnEnding]
            let changes = replay(late, configuration: c).rotationChanges
            return (changes.last.map { $0.time - end }, changes.map(\.rotation))
        }
        let sound = delay(confirmed: true)
        let first = delay(confirmed: false)
        #expect(sound.rotations == [.normal, .leftUp, .bottomUp])
        #expect(first.rotations == [.normal, .leftUp])
        if let a = sound.delay, let b = first.delay {
            #expect(a < 0.07, "confirmed: published \(a) s after the turn ended")
            #expect(b > a + 0.05, "unconfirmed: published \(b) s after the turn ended, confirmed \(a) s")
        }
    }
}
