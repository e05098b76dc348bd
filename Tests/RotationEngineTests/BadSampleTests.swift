import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Bad samples")
struct BadSampleTests {
    static let bad: [Vector3] = [
        Vector3(.nan, -9.8, 0), Vector3(0, .nan, 0), Vector3(0, 0, .nan),
        Vector3(.infinity, 0, 0), Vector3(0, -.infinity, 0), Vector3(0, 0, .infinity), .zero,
    ]

    @Test("NaN, infinite and zero readings are ignored and change no state", arguments: bad)
    func badReadingIgnored(_ reading: Vector3) {
        var trace = SyntheticTrace(rate: 50, angle: 0)
        trace.hold(1)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        // The same recording, with a bad reading after every good one.
        var polluted: [Sample] = []
        for s in trace.samples {
            polluted.append(s)
            polluted.append(Sample(time: s.time + 0.001, acceleration: reading))
        }
        var clean = OrientationEngine(), dirty = OrientationEngine()
        var cleanOut: [DeviceState] = [], dirtyOut: [DeviceState] = []
        for s in trace.samples { if let c = clean.process(s) { cleanOut.append(c) } }
        for s in polluted {
            let before = dirty.state
            let out = dirty.process(s)
            if !s.acceleration.isUsable {
                #expect(out == nil)
                #expect(dirty.state == before)
            }
            if let out { dirtyOut.append(out) }
        }
        #expect(dirtyOut == cleanOut)
        #expect(cleanOut.map(\.rotation) == [.normal, .leftUp])
    }

    @Test("a non-finite time, or a time that runs backwards, is ignored")
    func badTimeIgnored() {
        var engine = OrientationEngine()
        let up = Vector3(0, -9.8, 0)
        #expect(engine.process(Sample(time: .nan, acceleration: up)) == nil)
        #expect(engine.process(Sample(time: .infinity, acceleration: up)) == nil)
        #expect(engine.state == .initial)
        for i in 0...10 { _ = engine.process(Sample(time: 1 + Double(i) * 0.01, acceleration: up)) }
        #expect(engine.state.rotation == .normal)
        // Left edge up, but timestamped before the last sample: dropped, even when repeated for long.
        for i in 0..<100 {
            #expect(engine.process(Sample(time: 0.5 + Double(i) * 0.001, acceleration: Vector3(9.8, 0, 0))) == nil)
        }
        #expect(engine.state.rotation == .normal)
    }

    @Test("a sample in the middle of a decision that is bad does not reset the time rule's progress")
    func badSampleDoesNotCorruptProgress() {
        var trace = SyntheticTrace(rate: 100, angle: 0, noise: 0)
        trace.hold(1)
        trace.turn(by: -90, over: 0.4)
        trace.hold(1)
        let reference = replay(trace.samples).rotationChanges
        var samples = trace.samples
        let index = samples.firstIndex { $0.time > 1.45 } ?? 0
        samples.insert(Sample(time: samples[index].time, acceleration: Vector3(.nan, .nan, .nan)), at: index)
        let changes = replay(samples).rotationChanges
        #expect(changes.map(\.rotation) == reference.map(\.rotation))
        #expect(changes.map(\.time) == reference.map(\.time))
    }

    @Test("a sample with the same time as the previous one leaves the filter working, with or without smoothing and a gyroscope")
    func duplicateTime() throws {
        var unsmoothed = EngineConfiguration.default
        try unsmoothed.set("smoothingTime", to: 0)
        #expect(unsmoothed.validate() == nil)
        for configuration in [EngineConfiguration.default, unsmoothed] {
            for gyro in [false, true] {
                var trace = SyntheticTrace(rate: 100, angle: 0, elevation: 10, withGyro: gyro, seed: 31)
                trace.hold(1)
                trace.turn(by: 90, over: 0.5)
                trace.hold(1)
                trace.turn(by: 90, over: 0.5)
                trace.hold(1)
                // Every 50th sample is followed by a second reading at the same instant.
                var samples: [Sample] = []
                for (i, s) in trace.samples.enumerated() {
                    samples.append(s)
                    if i % 50 == 10 {
                        samples.append(Sample(time: s.time, acceleration: s.acceleration + Vector3(0.05, 0, 0),
                                              angularVelocity: s.angularVelocity))
                    }
                }
                let label = "smoothingTime \(configuration.smoothingTime), gyro \(gyro)"
                #expect(replay(samples, configuration: configuration).rotations == [.normal, .leftUp, .bottomUp], "\(label)")
                var engine = OrientationEngine(configuration: configuration)
                for s in samples { _ = engine.process(s) }
                #expect(engine.state.rotation == .bottomUp, "\(label)")
                #expect(engine.state.tilt == .vertical, "\(label)")
            }
        }
    }
}
