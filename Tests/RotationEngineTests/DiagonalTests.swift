import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Diagonal hysteresis")
struct DiagonalTests {
    @Test("held at the 45° diagonal with a wobble, the rotation does not flap")
    func noFlapAtDiagonal() {
        var trace = SyntheticTrace(rate: 100, angle: 0, noise: 0.3)
        trace.hold(1)
        trace.turn(by: 45, over: 0.4)
        for _ in 0..<10 {
            trace.turn(by: 8, over: 0.3)
            trace.turn(by: -16, over: 0.6)
            trace.turn(by: 8, over: 0.3)
        }
        let published = replay(trace.samples)
        #expect(published.rotations == [.normal])
    }

    @Test("past the diagonal by less than boundaryHysteresis the rotation stays; past it by more, it changes")
    func hysteresisBoundary() {
        let h = EngineConfiguration.default.boundaryHysteresis
        var inside = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        inside.hold(0.5)
        inside.turn(by: 45 + h - 3, over: 0.5)
        inside.hold(1.5)
        #expect(replay(inside.samples).rotations == [.normal])

        var beyond = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        beyond.hold(0.5)
        beyond.turn(by: 45 + h + 3, over: 0.5)
        beyond.hold(1.5)
        #expect(replay(beyond.samples).rotations == [.normal, .leftUp])
    }

    @Test("coming back from the other side, the new rotation is kept down to the mirrored boundary")
    func hysteresisBothWays() {
        var trace = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        trace.hold(0.5)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        trace.turn(by: -50, over: 0.5)      // 40°: past the diagonal, but within the hysteresis of 90°
        trace.hold(1.5)
        #expect(replay(trace.samples).rotations == [.normal, .leftUp])
    }
}
