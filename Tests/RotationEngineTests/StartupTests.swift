import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Start-up")
struct StartupTests {
    @Test("the first rotation is decided as soon as the device has been still for settleTime, and nothing with a null rotation is published first")
    func firstDecisionQuick() {
        for (angle, expected) in [(0.0, Rotation.normal), (90, .leftUp), (180, .bottomUp), (270, .rightUp)] {
            var trace = SyntheticTrace(rate: 50, angle: angle)
            trace.hold(1)
            let published = replay(trace.samples)
            let first = published.first?.time ?? 1
            #expect(first >= EngineConfiguration.default.settleTime && first < EngineConfiguration.default.settleTime + 0.03, "angle \(angle)")
            #expect(published.first?.state.rotation == expected, "angle \(angle)")
            #expect(published.rotations == [expected], "angle \(angle)")
        }
    }

    @Test("a device that starts flat publishes no rotation, a face-up tilt and the flat flag")
    func startsFlat() {
        var trace = SyntheticTrace(rate: 50, elevation: 88)
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.count == 1)
        #expect(published.first?.state == DeviceState(rotation: nil, tilt: .faceUp, flat: true, inputs: .accel))
    }

    @Test("a device that starts flat and is lifted gets its rotation once it is held still, and only that one")
    func startsFlatThenLifted() {
        var trace = SyntheticTrace(rate: 50, angle: 90, elevation: 88)
        trace.hold(1)
        trace.tilt(to: 20, over: 0.6)
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [nil, .leftUp])
    }

    @Test("while the first samples are shaken nothing is published; the first still one decides")
    func startsShaken() {
        var trace = SyntheticTrace(rate: 50, angle: 270)
        trace.shake(0.5, amplitude: 8, frequency: 5)
        let shakenUntil = trace.time
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [.rightUp])
        #expect((published.first?.time ?? 0) >= shakenUntil)
    }
}
