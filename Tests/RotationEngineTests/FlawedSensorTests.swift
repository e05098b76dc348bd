import Testing
@testable import RotationEngine
import RotationProtocol

/// Sensors as cheap tablets carry them: a missing or wrong scale, offsets and gain errors. The engine must decide
/// from what the readings show, never from what 1 g should read.
@Suite("Flawed sensors")
struct FlawedSensorTests {
    /// A minute of ordinary use: turns through every rotation, a half turn, a shake, a walk, a spell flat on a
    /// table and a lift, with sensor noise and jitter.
    static func ordinaryUse(rate: Double, gyro: Bool = false) -> SyntheticTrace {
        var trace = SyntheticTrace(rate: rate, angle: 0, elevation: 25, jitter: 0.2, noise: 0.15, withGyro: gyro, seed: 7)
        trace.hold(1.5)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1.5)
        trace.turn(by: 180, over: 0.8)
        trace.hold(1.5)
        trace.shake(2, amplitude: 10, frequency: 4)
        trace.hold(1)
        trace.turn(by: 90, over: 0.6)
        trace.hold(1)
        trace.walk(4)
        trace.tilt(to: 88, over: 0.8)
        trace.hold(1)
        trace.turn(by: 90, over: 1)
        trace.hold(1)
        trace.tilt(to: 30, over: 0.8)
        trace.hold(1.5)
        trace.turn(by: -90, over: 0.5)
        trace.hold(1.5)
        return trace
    }

    static func scaled(_ samples: [Sample], by k: Double) -> [Sample] {
        samples.map { Sample(time: $0.time, acceleration: $0.acceleration * k, angularVelocity: $0.angularVelocity) }
    }

    /// Every published state with its time, for comparing two runs.
    static func decisions(_ published: [Published]) -> [(time: Double, state: DeviceState)] {
        published.map { ($0.time, $0.state) }
    }

    @Test("a reading scaled by any factor from 1/30 to 30 gives the same decisions, at the same times, as a correct one")
    func scaleDoesNotMatter() {
        for rate in [10.0, 50, 100] {
            for gyro in [false, true] {
                let samples = Self.ordinaryUse(rate: rate, gyro: gyro).samples
                let reference = Self.decisions(replay(samples))
                #expect(reference.map(\.state.rotation).contains(.rightUp), "the reference run must turn")
                for k in [1.0 / 30, 0.1, 0.5, 2.61, 25.6, 30] {
                    let run = Self.decisions(replay(Self.scaled(samples, by: k)))
                    #expect(run.map(\.state) == reference.map(\.state), "\(rate) Hz, gyroscope \(gyro), scale ×\(k)")
                    let late = zip(run, reference).map { abs($0.time - $1.time) }.max() ?? 0
                    #expect(late <= 0.05, "\(rate) Hz, gyroscope \(gyro), scale ×\(k): decisions up to \(late) s apart")
                }
            }
        }
    }

    @Test("raw counts with no scale at all (1 g reads 256) turn the rotation as m/s² do")
    func rawCountsTurn() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 10)
        trace.hold(1)
        for _ in 0..<4 {
            trace.turn(by: 90, over: 0.5)
            trace.hold(1)
        }
        let counts = Self.scaled(trace.samples, by: 256 / SyntheticTrace.g)
        #expect(replay(counts).rotations == [.normal, .leftUp, .bottomUp, .rightUp, .normal])
    }

    @Test("what 1 g reads is learned within the first still second, and a shake does not move it")
    func learnsOneG() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 15, noise: 0.2)
        trace.hold(1.2)
        let k = 256 / SyntheticTrace.g
        var engine = OrientationEngine()
        let counts = Self.scaled(trace.samples, by: k)
        for s in counts { _ = engine.process(s) }
        let learned = engine.learnedGravity
        #expect(learned.isSettled(after: 1), "only \(learned.stillTime) s of stillness counted")
        #expect(abs(learned.value / 256 - 1) < 0.01, "learned \(learned.value)")
        #expect(abs(learned.factor(of: EngineConfiguration.default.gravity) - k) < 0.3)

        var shaken = trace
        shaken.shake(3, amplitude: 14, frequency: 3)
        shaken.hold(0.5)
        var engine2 = OrientationEngine()
        for s in Self.scaled(shaken.samples, by: k) { _ = engine2.process(s) }
        #expect(abs(engine2.learnedGravity.value / 256 - 1) < 0.02, "learned \(engine2.learnedGravity.value) after the shake")
    }

    @Test("a device shaken from the first sample still learns what 1 g reads once it is held still")
    func shakenAtStart() {
        var trace = SyntheticTrace(rate: 50, angle: 90, elevation: 15)
        trace.shake(1.5, amplitude: 12, frequency: 4)
        trace.hold(2)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        let counts = Self.scaled(trace.samples, by: 0.1)
        var engine = OrientationEngine()
        var rotations: [Rotation?] = []
        for s in counts {
            if let state = engine.process(s), rotations.last != .some(state.rotation) { rotations.append(state.rotation) }
        }
        #expect(rotations == [.leftUp, .bottomUp])
        #expect(abs(engine.learnedGravity.value / (0.1 * SyntheticTrace.g) - 1) < 0.03, "learned \(engine.learnedGravity.value)")
    }

    /// An uncalibrated sensor: a fixed offset per axis and a gain error per axis, applied to every reading.
    static func uncalibrated(_ samples: [Sample], offset: Vector3, gain: Vector3) -> [Sample] {
        samples.map { s in
            let a = s.acceleration
            return Sample(time: s.time, acceleration: Vector3(a.x * gain.x + offset.x, a.y * gain.y + offset.y, a.z * gain.z + offset.z),
                          angularVelocity: s.angularVelocity)
        }
    }

    @Test("offsets of a quarter g and gain errors of 8 % lose no turn, though some poses then read 0.7 g and others 1.3 g")
    func offsetsLoseNoTurn() {
        let g = SyntheticTrace.g
        let parts: [(Vector3, Vector3)] = [
            (Vector3(0.25 * g, 0.25 * g, 0.25 * g), Vector3(1.08, 0.92, 1.08)),
            (Vector3(-0.25 * g, 0.25 * g, -0.2 * g), Vector3(0.92, 0.92, 1.0)),
            (Vector3(0.2 * g, -0.25 * g, 0.1 * g), Vector3(1.08, 1.08, 0.95)),
        ]
        for gyro in [false, true] {
            var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 15, noise: 0.1, withGyro: gyro, seed: 11)
            trace.hold(1)
            for degrees in [90.0, 90, 90, 90, -180, 90] {
                trace.turn(by: degrees, over: 0.6)
                trace.hold(1.2)
            }
            let expected: [Rotation?] = [.normal, .leftUp, .bottomUp, .rightUp, .normal, .bottomUp, .rightUp]
            #expect(replay(trace.samples).rotations == expected)
            for (offset, gain) in parts {
                let samples = Self.uncalibrated(trace.samples, offset: offset, gain: gain)
                let magnitudes = samples.map(\.acceleration.length)
                #expect((magnitudes.min() ?? 0) < 0.8 * g || (magnitudes.max() ?? 0) > 1.2 * g,
                        "the sensor must read far from g in some pose for this test to mean anything")
                #expect(replay(samples).rotations == expected, "offset \(offset), gain \(gain), gyroscope \(gyro)")
            }
        }
    }

    /// A reclined device (screen 60° from vertical) turned from left edge up to upside down, read as the service
    /// reads it: one sample every 0.4 s while still (the sampling policy's slow pace) until one finds the turn
    /// under way, then every sample. The sensor's x axis reads a quarter g too much and its y axis
    /// 0.1 g too little at 92 % gain: upside down reads 145°, inside the hysteresis band of left edge up.
    static func reclinedQuarterTurn(gyro: Bool) -> [Sample] {
        var trace = SyntheticTrace(rate: 50, angle: 90, elevation: 60, noise: 0.1, withGyro: gyro, seed: 13)
        trace.hold(1.35)
        trace.turn(by: 90, over: 0.5)
        trace.hold(2.5)
        let g = SyntheticTrace.g
        let read = trace.samples.enumerated().filter { i, s in s.time >= 1.59 || i % 20 == 0 }.map(\.element)
        return uncalibrated(read, offset: Vector3(0.25 * g, -0.1 * g, 0), gain: Vector3(1, 0.92, 1))
    }

    @Test("a quarter turn that an uncalibrated sensor reads as 55° is published once the gyroscope measured it, though the turn began between two slow reads; the accelerometer alone cannot tell it from a diagonal")
    func gyroscopeCarriesShortReadTurn() {
        let last = Self.reclinedQuarterTurn(gyro: true).last!.acceleration
        let read = (Angles.atan2Degrees(last.x, -last.y) + 360).truncatingRemainder(dividingBy: 360)
        #expect(read > 135 && read < 45 + 90 + EngineConfiguration.default.boundaryHysteresis,
                "upside down must read past the diagonal but inside the hysteresis band; reads \(read)°")
        #expect(replay(Self.reclinedQuarterTurn(gyro: false)).rotations == [.leftUp])
        let fused = replay(Self.reclinedQuarterTurn(gyro: true)).rotationChanges
        #expect(fused.map(\.rotation) == [.leftUp, .bottomUp])
        if let t = fused.last?.time { #expect(t < 2.15, "published \(t - 1.85) s after the turn ended") }
    }

    @Test("a turn of 45° to a diagonal that an uncalibrated sensor reads past it keeps the rotation, also sampled at the still pace")
    func diagonalNotCarried() {
        for thinned in [false, true] {
            var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 40, noise: 0.1, withGyro: true, seed: 17)
            trace.hold(2)
            trace.turn(by: 45, over: 0.3)
            trace.hold(3)
            var samples = trace.samples
            if thinned {
                // At the still pace only every tenth sample is read until the turn is seen under way.
                samples = samples.enumerated().filter { i, s in s.time >= 2.08 && s.time < 2.5 || i % 10 == 0 }.map(\.element)
            }
            let g = SyntheticTrace.g
            let part = Self.uncalibrated(samples, offset: Vector3(0.1 * g, 0.1 * g, 0), gain: Vector3(1, 1, 1))
            let last = part.last!.acceleration
            let read = Angles.atan2Degrees(last.x, -last.y)
            #expect(read > 45, "the diagonal must read past 45°; reads \(read)°")
            #expect(replay(part).rotations == [.normal], "thinned \(thinned)")
        }
    }

    @Test("an uncalibrated sensor lying face down on a table keeps its rotation while it is turned there, though the gyroscope measures the turn and the offsets read it 20° from flat, in or across the next quadrant", arguments: [
        // Laid down from upside down, read 40° from the next quadrant, turned a quarter.
        (180.0, Vector3(-0.2, 0.25, 0.14), 90.0),
        // Laid down from upright, read 10° into the next quadrant (35° from where it was), turned 135°.
        (0.0, Vector3(0.24, -0.17, -0.03), 135.0),
    ])
    func turnedFaceDownOnTable(angle: Double, offset: Vector3, turn: Double) {
        var trace = SyntheticTrace(rate: 50, angle: angle, elevation: 30, noise: 0.1, withGyro: true, seed: 19)
        trace.hold(1.5)
        trace.tilt(to: -90, over: 1)
        trace.hold(2)
        trace.turn(by: turn, over: 1.2)
        trace.hold(2)
        let g = SyntheticTrace.g
        let part = Self.uncalibrated(trace.samples, offset: offset * g, gain: Vector3(1, 1, 1))
        let lying = part.last!.acceleration
        let inPlane = (lying.x * lying.x + lying.y * lying.y).squareRoot()
        #expect(inPlane > 0.28 * g && inPlane < 0.34 * g, "the offsets must read about 0.3 g in the screen plane; read \(inPlane / g) g")
        #expect(replay(part).rotations == [Rotation(degrees: Int(angle))], "laid down at \(angle)°, turned \(turn)°")
    }
}
