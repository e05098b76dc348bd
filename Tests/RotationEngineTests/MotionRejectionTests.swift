import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Motion rejection")
struct MotionRejectionTests {
    @Test("shaking hard in the screen plane does not turn the rotation, at any rate")
    func shakeRejected() {
        for rate in [10.0, 50, 100, 400] {
            for angle in [0.0, 90, 180, 270] {
                var trace = SyntheticTrace(rate: rate, angle: angle)
                trace.hold(1)
                trace.shake(3, amplitude: 12, frequency: 4)
                trace.hold(1)
                let first = replay(trace.samples).rotations.first ?? nil
                #expect(replay(trace.samples).rotations == [first], "at \(rate) Hz, angle \(angle)")
                #expect(first.map { Double($0.degrees) } == angle)
            }
        }
    }

    @Test("a shake that tips |a| far from g freezes the filter for motionHoldoff")
    func holdoffFreezes() {
        // Upright, then a hard shake while being turned a quarter; the quarter is only published after the
        // shake has ended, not during it.
        var trace = SyntheticTrace(rate: 100, angle: 0)
        trace.hold(1)
        let a = trace.angle, e = trace.elevation
        let start = trace.time
        trace.segment(1.0, pose: { u in (a + 90 * SyntheticTrace.ease(min(u * 3, 1)), e) },
                      extra: { t in Vector3(0, 9 * SyntheticTrace.sin(2 * Double.pi * 6 * (t - start)), 0) })
        let shakeEnd = trace.time
        trace.hold(1)
        let changes = replay(trace.samples).rotationChanges
        #expect(changes.map(\.rotation) == [.normal, .leftUp])
        #expect((changes.last?.time ?? 0) >= shakeEnd)
    }

    @Test("walking with the device upright or turned keeps its rotation")
    func walkingRejected() {
        for angle in [0.0, 270] {
            var trace = SyntheticTrace(rate: 50, angle: angle, seed: 3)
            trace.hold(1)
            trace.walk(8)
            #expect(replay(trace.samples).rotations == [Rotation(degrees: Int(angle))], "angle \(angle)")
        }
    }
}
