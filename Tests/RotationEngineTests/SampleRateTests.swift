import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Sample rates")
struct SampleRateTests {
    /// Upright, a quarter left-up, a half turn to right-up, back upright; each held 1.5 s.
    func scenario(rate: Double, jitter: Double, dropRate: Double, seed: UInt64, gyro: Bool = false) -> (samples: [Sample], arrivals: [Double]) {
        var trace = SyntheticTrace(rate: rate, angle: 0, jitter: jitter, dropRate: dropRate, withGyro: gyro, seed: seed)
        var arrivals: [Double] = []
        trace.hold(1.5)
        trace.turn(by: 90, over: 0.5); arrivals.append(trace.time); trace.hold(1.5)
        trace.turn(by: 180, over: 0.8); arrivals.append(trace.time); trace.hold(1.5)
        trace.turn(by: 90, over: 0.5); arrivals.append(trace.time); trace.hold(1.5)
        return (trace.samples, arrivals)
    }

    @Test("5, 10, 50, 100 and 400 Hz with jitter and lost samples give the same rotations, each soon after the turn ends",
          arguments: [5.0, 10, 50, 100, 400])
    func sameResultAtEveryRate(_ rate: Double) {
        for seed in UInt64(1)...4 {
            let (samples, arrivals) = scenario(rate: rate, jitter: 0.5, dropRate: 0.1, seed: seed)
            let changes = replay(samples).rotationChanges
            #expect(changes.map(\.rotation) == [.normal, .leftUp, .rightUp, .normal], "\(rate) Hz seed \(seed)")
            guard changes.count == 4 else { continue }
            // Allow two sample intervals for the time rule at low rates, and 150 ms at high ones.
            let allowance = max(0.15, 2.5 / rate)
            for (change, arrival) in zip(changes.dropFirst(), arrivals) {
                #expect(change.time - arrival < allowance, "\(rate) Hz seed \(seed): \(change.time - arrival) s after arrival")
            }
        }
    }

    @Test("with a gyroscope too, every rate from 5 to 400 Hz with jitter and lost samples gives the same rotations",
          arguments: [5.0, 10, 50, 100, 400])
    func fusedAtEveryRate(_ rate: Double) {
        for seed in UInt64(1)...4 {
            let (samples, arrivals) = scenario(rate: rate, jitter: 0.5, dropRate: 0.1, seed: seed, gyro: true)
            let published = replay(samples)
            let changes = published.rotationChanges
            #expect(changes.map(\.rotation) == [.normal, .leftUp, .rightUp, .normal], "\(rate) Hz seed \(seed)")
            #expect(published.last?.state.inputs == .accelGyro)
            guard changes.count == 4 else { continue }
            let allowance = max(0.1, 2.5 / rate)
            for (change, arrival) in zip(changes.dropFirst(), arrivals) {
                #expect(change.time - arrival < allowance, "\(rate) Hz seed \(seed): \(change.time - arrival) s after arrival")
            }
        }
    }

    @Test("at 10 Hz a quarter turn made in two readings is published at the first still reading after it: what is left of the turn's rate one reading later is under a twentieth, not a quarter")
    func lowRateTurnPublishedAtFirstStillReading() {
        var engine = OrientationEngine()
        let up = Vector3(0, -9.8, 0), diagonal = Vector3(9.8 * 0.7071, -9.8 * 0.7071, 0), left = Vector3(9.8, 0, 0)
        var published: [(time: Double, rotation: Rotation?)] = []
        let poses = Array(repeating: up, count: 20) + [diagonal] + Array(repeating: left, count: 10)
        for (i, pose) in poses.enumerated() {
            if let state = engine.process(Sample(time: Double(i) * 0.1, acceleration: pose)) {
                published.append((Double(i) * 0.1, state.rotation))
            }
        }
        // The turn ends with the reading at 2.1 s (450°/s over its last step); 2.2 s is the first still one.
        let turned = published.first { $0.rotation == .leftUp }
        #expect(turned.map { abs($0.time - 2.2) < 1e-9 } == true, "published: \(published)")
    }

    @Test("the turn rate's weight per reading is the first-order dt / (τ + dt) up to one time constant, and past it leaves half of the previous rate at dt = τ, decaying by e per time constant")
    func turnRateWeight() {
        #expect(abs(TurnRateMeter.weight(dt: 0.02, timeConstant: 0.03) - 0.4) < 1e-12)
        #expect(abs(TurnRateMeter.weight(dt: 0.03, timeConstant: 0.03) - 0.5) < 1e-12)
        #expect(abs(TurnRateMeter.weight(dt: 0.03 + 1e-9, timeConstant: 0.03) - 0.5) < 1e-6)
        #expect(abs(TurnRateMeter.weight(dt: 0.06, timeConstant: 0.03) - (1 - 0.5 * 0.36787944117144233)) < 1e-12)
        #expect(abs(TurnRateMeter.weight(dt: 0.1, timeConstant: 0.03) - (1 - 0.5 * 0.09697196786440505)) < 1e-12)
        let decays = stride(from: 0.0, through: 30, by: 0.37).map { TurnRateMeter.decay($0) }
        #expect(decays.first == 1 && zip(decays, decays.dropFirst()).allSatisfy { $1 < $0 && $1 > 0 })
        #expect(abs(TurnRateMeter.decay(2.3333333333333335) - 0.09697196786440505) < 1e-14)
        #expect(abs(TurnRateMeter.decay(10) - 4.5399929762484854e-05) < 1e-18)
    }

    @Test("at 5 Hz a single sample in a new quadrant is never enough")
    func singleSampleNeverEnough() {
        var engine = OrientationEngine()
        let up = Vector3(0, -9.8, 0), left = Vector3(9.8, 0, 0)
        for i in 0..<10 { _ = engine.process(Sample(time: Double(i) * 0.2, acceleration: up)) }
        #expect(engine.process(Sample(time: 2.0, acceleration: left)) == nil)
        #expect(engine.process(Sample(time: 2.2, acceleration: up)) == nil)
        #expect(engine.state.rotation == .normal)
    }
}
