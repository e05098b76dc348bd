import Testing
@testable import RotationEngine
import RotationProtocol

/// The sampling policy: slow while the device is still, the full rate from the first reading that departs.
@Suite("Sampling policy")
struct SamplingPolicyTests {
    /// Runs `samples` through an engine and a policy as a live capture would: at the slow pace only the samples
    /// due at the policy's interval are read. Returns the samples read, with the pace after each.
    static func run(_ samples: [Sample], configuration: SamplingPolicy.Configuration = .init())
        -> (read: [(time: Double, pace: SamplingPolicy.Pace)], published: [Published]) {
        var engine = OrientationEngine()
        var policy = SamplingPolicy(configuration: configuration)
        var read: [(time: Double, pace: SamplingPolicy.Pace)] = []
        var published: [Published] = []
        var due = -Double.infinity
        for s in samples where s.time >= due - 1e-9 {
            if let state = engine.process(s) { published.append(Published(time: s.time, state: state)) }
            let pace = policy.update(s, engineQuiet: engine.isQuiet)
            read.append((s.time, pace))
            due = pace == .slow ? s.time + policy.interval : -.infinity
        }
        return (read, published)
    }

    @Test("a still device drops to one read every slowInterval once settled and once 1 g is learned, and stays there")
    func stillGoesSlow() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05)
        trace.hold(10)
        let r = Self.run(trace.samples)
        let slowSince = r.read.first { $0.pace == .slow }?.time ?? .infinity
        // Not before what 1 g reads rests on a second of stillness (the scale check needs it), then settleTime.
        let earliest = LearnedGravity.settlingTime + SamplingPolicy.Configuration().settleTime
        #expect(slowSince >= earliest - 0.03 && slowSince < earliest + 0.3, "slow from \(slowSince)")
        var engine = OrientationEngine()
        for s in trace.samples where s.time <= LearnedGravity.settlingTime - 0.05 { _ = engine.process(s) }
        #expect(!engine.isQuiet && !engine.learnedGravity.isSettled())
        for s in trace.samples where s.time > LearnedGravity.settlingTime - 0.05 && s.time <= earliest { _ = engine.process(s) }
        #expect(engine.isQuiet && engine.learnedGravity.isSettled())
        let late = r.read.filter { $0.time > 2 }
        #expect(late.allSatisfy { $0.pace == .slow })
        // 8 s at one read per 0.4 s, instead of 400 reads at 50 Hz.
        #expect(late.count >= 18 && late.count <= 22, "\(late.count) reads in the last 8 s")
    }

    @Test("the first reading that departs from the still pose brings the full rate back, and the turn is published")
    func departureGoesFull() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05)
        trace.hold(5)
        let turnStart = trace.time
        trace.turn(by: 90, over: 0.6)
        let turnEnd = trace.time
        trace.hold(3)
        let r = Self.run(trace.samples)
        // The first read once the turn is past the band (at most 6°, 0.1 s into this turn) departs: the next
        // read is at the full rate.
        guard let first = r.read.firstIndex(where: { $0.time > turnStart && $0.pace == .full }) else {
            Issue.record("no read at the full rate after the turn started")
            return
        }
        #expect(r.read[first].time - turnStart <= 0.4 + 0.1 + 1e-9, "departed \(r.read[first].time - turnStart) s into the turn")
        #expect(!r.read[..<first].contains { $0.time > turnStart + 0.1 + 1e-9 }, "a read past the band stayed slow")
        #expect(r.read[first + 1].time - r.read[first].time < 0.03)
        #expect(r.published.rotationChanges.map(\.rotation) == [.normal, .leftUp])
        let change = r.published.rotationChanges.last?.time ?? .infinity
        #expect(change < turnEnd + 0.15, "published \(change - turnEnd) s after the turn ended")
        // And slow again once the new pose has settled.
        #expect(r.read.last?.pace == .slow)
    }

    @Test("a sensor's own noise, even a 6-bit sensor's, does not keep the rate up; a hand's tremor widens the band only so far")
    func noiseLearned() {
        for noise in [0.05, 0.6, 1.2] {
            var trace = SyntheticTrace(rate: 50, angle: 90, elevation: 20, noise: noise, seed: 5)
            trace.hold(20)
            let r = Self.run(trace.samples)
            let late = r.read.filter { $0.time > 10 }
            let slow = late.filter { $0.pace == .slow }.count
            #expect(Double(slow) >= 0.8 * Double(late.count), "noise \(noise): \(slow) of \(late.count) reads slow")
        }
        var policy = SamplingPolicy()
        var t = 0.0
        for i in 0..<2000 {
            // A wildly shaking reading that the engine still calls quiet cannot widen the band past its limit.
            let a = Vector3(i % 2 == 0 ? 4 : -4, -9.8, 0)
            policy.update(Sample(time: t, acceleration: a), engineQuiet: true)
            t += 0.02
        }
        #expect(policy.band <= SamplingPolicy.Configuration().maximumDeparture)
    }

    @Test("while the engine has something pending the rate stays full, however still the readings")
    func pendingKeepsFull() {
        var policy = SamplingPolicy()
        for i in 0..<200 {
            policy.update(Sample(time: Double(i) * 0.02, acceleration: Vector3(0, -9.8, 0)), engineQuiet: false)
        }
        #expect(policy.pace == .full)
        policy.update(Sample(time: 4.02, acceleration: Vector3(0, -9.8, 0)), engineQuiet: true)
        #expect(policy.pace == .full, "quiet for an instant is not settled")
    }

    @Test("reset returns to the full rate and forgets the still pose")
    func resetGoesFull() {
        var policy = SamplingPolicy()
        for i in 0..<100 {
            policy.update(Sample(time: Double(i) * 0.02, acceleration: Vector3(0, -9.8, 0)), engineQuiet: true)
        }
        #expect(policy.pace == .slow)
        policy.reset()
        #expect(policy.pace == .full && policy.interval == 0)
    }

    @Test("with the policy, a replayed turn after stillness is published as soon as at the full rate, within a sample")
    func policyCostsLittle() {
        for rate in [50.0, 100] {
            for gyro in [false, true] {
                var trace = SyntheticTrace(rate: rate, angle: 0, elevation: 25, noise: 0.05, withGyro: gyro, seed: 9)
                trace.hold(4)
                trace.turn(by: 90, over: 0.8)
                trace.hold(3)
                trace.turn(by: -180, over: 1.0)
                trace.hold(3)
                let full = replay(trace.samples).rotationChanges
                let paced = Self.run(trace.samples).published.rotationChanges
                #expect(paced.map(\.rotation) == full.map(\.rotation), "\(rate) Hz, gyroscope \(gyro)")
                for (p, f) in zip(paced, full).dropFirst() {
                    #expect(abs(p.time - f.time) <= 1.5 / rate + 1e-9, "\(rate) Hz, gyroscope \(gyro): \(p.time) vs \(f.time)")
                }
            }
        }
    }

    @Test("a shake that starts while the device is read slowly does not turn it, with or without a gyroscope")
    func shakeFromSlow() {
        for gyro in [false, true] {
            for angle in [0.0, 90, 180, 270] {
                var trace = SyntheticTrace(rate: 50, angle: angle, elevation: 20, withGyro: gyro, seed: 4)
                trace.hold(3)
                trace.shake(3, amplitude: 12, frequency: 4)
                trace.hold(2)
                let r = Self.run(trace.samples)
                #expect(r.published.rotations == [Rotation(degrees: Int(angle))], "angle \(angle), gyroscope \(gyro)")
            }
        }
    }

    @Test("a fold that a hinge sensor reads while the display is still keeps the engine busy until its dwell decides it: the full rate comes back, and tablet is published one dwell after the fold, not at a slow read after it")
    func foldDwellIsPending() throws {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05)
        trace.hold(8)
        let foldedAt = 5.0
        let samples = trace.samples.map { s -> Sample in
            var s = s
            s.hinge = s.time < foldedAt ? 110 : 350
            return s
        }
        let r = Self.run(samples)
        let firstFolded = try #require(r.read.first { $0.time >= foldedAt })
        #expect(r.read.last { $0.time < foldedAt }?.pace == .slow, "the display was not read slowly before the fold")
        let tablet = try #require(r.published.first { $0.state.fold.posture == .tablet })
        let dwell = PostureLimits.foldedDwell
        #expect(tablet.time >= firstFolded.time + dwell - 1e-9 && tablet.time <= firstFolded.time + dwell + 0.03,
                "tablet at \(tablet.time), the fold read at \(firstFolded.time)")
        #expect(r.read.filter { $0.time >= firstFolded.time && $0.time < tablet.time }.allSatisfy { $0.pace == .full })

        var engine = OrientationEngine()
        for s in samples where s.time < foldedAt { _ = engine.process(s) }
        #expect(engine.isQuiet)
        _ = engine.process(try #require(samples.first { $0.time >= foldedAt }))
        #expect(!engine.isQuiet, "quiet with the fold waiting out its dwell")
    }
}
