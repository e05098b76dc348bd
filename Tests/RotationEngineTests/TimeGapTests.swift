import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Time gaps and reset")
struct TimeGapTests {
    @Test("after a gap longer than maxGap the filter starts afresh: time before the gap does not count towards a change")
    func gapRestarts() {
        var trace = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        trace.hold(1)
        trace.turn(by: 90, over: 0.3)
        trace.hold(0.03)                       // a new quadrant proposed, then the sensor stalls
        trace.gap(EngineConfiguration.default.maxGap + 0.5)
        let resumed = trace.time
        trace.hold(1)
        let changes = replay(trace.samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp])
        // The first sample after the gap cannot publish: it only restarts the filter.
        #expect((changes.last?.time ?? 0) > resumed)
    }

    @Test("a gap shorter than maxGap is bridged: the state carries on")
    func shortGapBridged() {
        var trace = SyntheticTrace(rate: 50, angle: 180)
        trace.hold(1)
        trace.gap(0.5)
        trace.hold(1)
        #expect(replay(trace.samples).rotations == [.bottomUp])
    }

    @Test("a gap while the device was turned publishes the new rotation once the time rule is met, not before")
    func turnedDuringGap() {
        var trace = SyntheticTrace(rate: 50, angle: 0)
        trace.hold(1)
        trace.gap(3)
        var after = SyntheticTrace(rate: 50, angle: 270)
        after.hold(1)
        let samples = trace.samples + after.samples.map { Sample(time: $0.time + trace.time, acceleration: $0.acceleration) }
        let changes = replay(samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .rightUp])
        #expect((changes.last?.time ?? 0) > trace.time)
    }

    @Test("reset forgets the samples but keeps the published state until the next decision")
    func resetKeepsState() {
        var trace = SyntheticTrace(rate: 50, angle: 90)
        trace.hold(1)
        var engine = OrientationEngine()
        for s in trace.samples { _ = engine.process(s) }
        #expect(engine.state.rotation == .leftUp)
        engine.reset()
        #expect(engine.state.rotation == .leftUp)
        // Time may start over after a reset.
        var again = SyntheticTrace(rate: 50, angle: 90)
        again.hold(1)
        var changed = false
        for s in again.samples where engine.process(s)?.rotation != nil && engine.state.rotation != .leftUp { changed = true }
        #expect(!changed)
        #expect(engine.state.rotation == .leftUp)
    }
}
