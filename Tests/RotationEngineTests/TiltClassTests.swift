import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Tilt classes")
struct TiltClassTests {
    func tilt(atElevation e: Double, angle: Double = 0) -> (Tilt?, Bool) {
        var trace = SyntheticTrace(rate: 50, angle: angle, elevation: e, noise: 0)
        trace.hold(0.5)
        var engine = OrientationEngine()
        for s in trace.samples { _ = engine.process(s) }
        return (engine.state.tilt, engine.state.flat)
    }

    @Test("each elevation gives its documented class")
    func classes() {
        #expect(tilt(atElevation: 0) == (.vertical, false))
        #expect(tilt(atElevation: 15) == (.vertical, false))
        #expect(tilt(atElevation: -15) == (.vertical, false))
        #expect(tilt(atElevation: 40) == (.tiltedUp, false))
        #expect(tilt(atElevation: -40) == (.tiltedDown, false))
        #expect(tilt(atElevation: 85) == (.faceUp, true))
        #expect(tilt(atElevation: -85) == (.faceDown, true))
        #expect(tilt(atElevation: 30, angle: 90) == (.tiltedUp, false))
    }

    @Test("wobbling around verticalLimit does not flap the tilt class")
    func tiltHysteresis() {
        let limit = EngineConfiguration.default.verticalLimit
        var trace = SyntheticTrace(rate: 100, angle: 0, elevation: limit - 1, noise: 0.1)
        trace.hold(0.5)
        for _ in 0..<10 {
            trace.tilt(to: limit + 2, over: 0.2)
            trace.tilt(to: limit - 2, over: 0.2)
        }
        var classes: [Tilt?] = []
        for p in replay(trace.samples) where classes.last != p.state.tilt { classes.append(p.state.tilt) }
        #expect(classes == [.vertical])
    }

    @Test("tilt names are the wire names")
    func names() {
        #expect(Tilt.allCases.map(\.name) == ["vertical", "tilted-up", "tilted-down", "face-up", "face-down"])
    }
}
