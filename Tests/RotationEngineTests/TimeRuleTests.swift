import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Time rule")
struct TimeRuleTests {
    @Test("a glance, tipped past the boundary and straight back without stopping for settleTime, is not published")
    func glanceRejected() {
        for rate in [10.0, 50, 100, 400] {
            var trace = SyntheticTrace(rate: rate, angle: 0)
            trace.hold(1)
            trace.turn(by: -75, over: 0.15)
            trace.turn(by: 75, over: 0.15)
            trace.hold(1)
            #expect(replay(trace.samples).rotations == [.normal], "at \(rate) Hz")
        }
    }

    @Test("a pause at the far end of a glance longer than settleTime counts as a look, and is published")
    func pausedGlancePublished() {
        var trace = SyntheticTrace(rate: 100, angle: 0)
        trace.hold(1)
        trace.turn(by: -75, over: 0.15)
        trace.hold(0.2)
        trace.turn(by: 75, over: 0.15)
        trace.hold(1)
        #expect(replay(trace.samples).rotations == [.normal, .rightUp, .normal])
        var patient = EngineConfiguration.default
        patient.settleTime = 0.3
        #expect(replay(trace.samples, configuration: patient).rotations == [.normal])
    }

    @Test("a half turn publishes only its end, never the quarter it passes through")
    func halfTurnSkipsIntermediateQuarter() {
        for rate in [10.0, 50, 100, 400] {
            for direction in [1.0, -1.0] {
                var trace = SyntheticTrace(rate: rate, angle: 0, seed: 7)
                trace.hold(1)
                trace.turn(by: 180 * direction, over: 0.7)
                trace.hold(1.5)
                #expect(replay(trace.samples).rotations == [.normal, .bottomUp], "at \(rate) Hz, direction \(direction)")
            }
        }
    }

    @Test("a quarter turn is published within a short time of the device coming to rest")
    func quarterTurnLatency() {
        for rate in [50.0, 100, 400] {
            var trace = SyntheticTrace(rate: rate, angle: 0)
            trace.hold(1)
            trace.turn(by: 90, over: 0.5)
            let arrived = trace.time
            trace.hold(1)
            let change = replay(trace.samples).rotationChanges
            #expect(change.map(\.rotation) == [.normal, .leftUp], "at \(rate) Hz")
            if let t = change.last?.time {
                #expect(t - arrived < 0.12, "at \(rate) Hz: published \(t - arrived) s after arriving")
                #expect(t - arrived > -0.25, "at \(rate) Hz: published \(t - arrived) s after arriving")
            }
        }
    }

    @Test("a slow drift into a new quadrant is published once it stops")
    func slowTurnPublished() {
        var trace = SyntheticTrace(rate: 50, angle: 0)
        trace.hold(1)
        trace.turn(by: -90, over: 3)
        trace.hold(1)
        #expect(replay(trace.samples).rotations == [.normal, .rightUp])
    }
}
