import Testing
@testable import RotationEngine
import RotationProtocol

/// The `turnEnding` rule: a turn the gyroscope reads braking to rest inside the new quadrant is published at
/// that sample, before it settles.
@Suite("Turn ending")
struct TurnEndingTests {
    /// 1.5 s upright at 10 Hz, a turn of `degrees` over `seconds`, then 1.5 s at rest; returns the samples and
    /// the turn's end.
    static func trace(degrees: Double, over seconds: Double, seed: UInt64 = 61) -> (samples: [Sample], end: Double) {
        var trace = SyntheticTrace(rate: 10, angle: 0, elevation: 20, noise: 0.05, withGyro: true, seed: seed)
        trace.hold(1.5)
        let start = trace.time
        trace.turn(by: degrees, over: seconds)
        trace.hold(1.5)
        return (trace.samples, start + seconds)
    }

    @Test("a quarter turn the gyroscope reads braking into the new quadrant is published at that sample, before the turn ends; with the rule off, at the next one")
    func brakingTurnPublishedAtOnce() {
        // Samples 0.1 s apart fall at 0.91 of the turn (88°, braking from 267°/s to 102°/s) and 0.06 s after it.
        let t = Self.trace(degrees: 90, over: 0.44)
        let last = t.samples.last { $0.time < t.end }!.time
        let on = replay(t.samples).rotationChanges
        #expect(on.map(\.rotation) == [.normal, .leftUp])
        #expect(on.last?.time == last, "published at \(on.last?.time ?? .nan), the turn's last sample at \(last)")
        var off = EngineConfiguration.default
        off.disabledRules = [.turnEnding]
        let waited = replay(t.samples, configuration: off).rotationChanges
        #expect(waited.map(\.rotation) == [.normal, .leftUp])
        #expect((waited.last?.time ?? 0) > t.end, "with the rule off the change waits for a settled sample")
    }

    @Test("with the accelerometer alone, quarter turns at 50 Hz read braking into the new quadrant are published before they settle; with endingRate 0, once settled")
    func accelerometerBrakingTurnPublishedEarly() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05, seed: 5)
        trace.hold(1.5)
        for turn in [90.0, 90, -90, -90] {
            trace.turn(by: turn, over: 0.3)
            trace.hold(1.5)
        }
        var waiting = EngineConfiguration.default
        waiting.endingRate = 0
        let early = replay(trace.samples).rotationChanges.dropFirst()
        let settled = replay(trace.samples, configuration: waiting).rotationChanges.dropFirst()
        #expect(early.map(\.rotation) == [.leftUp, .bottomUp, .leftUp, .normal])
        #expect(settled.map(\.rotation) == early.map(\.rotation))
        let lead = zip(early, settled).map { $1.time - $0.time }
        #expect(lead.allSatisfy { $0 >= 0.04 }, "each change should come at least two samples before it settles: \(lead) s")
    }

    @Test("a turn braking to rest 28° short of the new rotation's upright waits to settle")
    func shortOfTheMarginWaits() {
        let t = Self.trace(degrees: 62, over: 0.44)
        let changes = replay(t.samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp])
        #expect((changes.last?.time ?? 0) > t.end, "published at \(changes.last?.time ?? .nan), the turn ended at \(t.end)")
    }

    @Test("a half turn passes its intermediate quarter at full speed, not braking: only its end is published, whatever the sampling phase")
    func halfTurnPublishesOnlyItsEnd() {
        for seed in UInt64(1)...8 {
            var trace = SyntheticTrace(rate: 10, angle: 0, elevation: 20, jitter: 0.3, noise: 0.05, withGyro: true, seed: seed)
            trace.hold(1.5 + 0.0123 * Double(seed))
            trace.turn(by: 180, over: 0.6)
            trace.hold(1.5)
            #expect(replay(trace.samples).rotations == [.normal, .bottomUp], "seed \(seed)")
        }
    }

    @Test("with an accelerometer that lags 0.1 s, turns published as they end keep a sound gyroscope: it is asked about each turn once the accelerometer has settled, and confirmed")
    func laggingAccelerometerKeepsTheGyroscope() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, noise: 0.05, withGyro: true, seed: 53)
        trace.hold(1.5)
        trace.turn(by: 90, over: 0.5)
        let firstEnd = trace.time
        trace.hold(1.5)
        trace.turn(by: 90, over: 0.3)
        let secondEnd = trace.time
        trace.hold(1.5)
        let late = SyntheticTrace.accelerometerLagging(trace.samples, by: 5)
        var engine = OrientationEngine()
        var published: [Published] = []
        var confirmedAt: Double?
        for sample in late {
            if let state = engine.process(sample) { published.append(Published(time: sample.time, state: state)) }
            if confirmedAt == nil, engine.gyroscopeConfirmed { confirmedAt = sample.time }
        }
        let changes = published.rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp, .bottomUp])
        #expect(published.allSatisfy { $0.state.inputs == .accelGyro }, "the gyroscope was dropped: \(published.map(\.state.inputs))")
        if changes.count == 3 {
            #expect(changes[1].time < firstEnd && changes[2].time < secondEnd, "published \(changes.map(\.time)), the turns ended at \(firstEnd), \(secondEnd)")
            #expect(confirmedAt.map { $0 > changes[1].time && $0 < firstEnd + 0.5 } == true, "confirmed at \(String(describing: confirmedAt))")
        }
    }
}
