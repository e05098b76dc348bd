import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Flat detection")
struct FlatHysteresisTests {
    /// Elevation sweeps the device through and between the flat thresholds; returns the flat flags published.
    func flatFlags(elevations: [Double], configuration: EngineConfiguration = .default) -> [Bool] {
        var trace = SyntheticTrace(rate: 50, noise: 0)
        trace.hold(0.5)
        for e in elevations {
            trace.tilt(to: e, over: 0.4)
            trace.hold(0.5)
        }
        var flags: [Bool] = []
        for p in replay(trace.samples, configuration: configuration) where flags.last != p.state.flat {
            flags.append(p.state.flat)
        }
        return flags
    }

    @Test("flat starts above flatEnterAngle and ends only below flatExitAngle")
    func enterAndExit() {
        let c = EngineConfiguration.default
        // Up to between the thresholds: not flat. Above enter: flat. Back between: still flat. Below exit: not.
        let between = (c.flatEnterAngle + c.flatExitAngle) / 2
        #expect(flatFlags(elevations: [between]) == [false])
        #expect(flatFlags(elevations: [c.flatEnterAngle + 5, between]) == [false, true])
        #expect(flatFlags(elevations: [c.flatEnterAngle + 5, between, c.flatExitAngle - 5]) == [false, true, false])
        #expect(flatFlags(elevations: [-(c.flatEnterAngle + 5), -between, -(c.flatExitAngle - 5)]) == [false, true, false])
    }

    @Test("the rotation holds while the device lies flat, even when it is turned on the table")
    func rotationHoldsWhileFlat() {
        var trace = SyntheticTrace(rate: 50, angle: 90)
        trace.hold(1)
        trace.tilt(to: 89, over: 0.6)
        trace.hold(0.5)
        trace.turn(by: 90, over: 0.8)
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [.leftUp])
        #expect(published.last?.state.flat == true)
        #expect(published.last?.state.tilt == .faceUp)
    }

    @Test("lifted after being turned while flat, the device goes straight to its new rotation, never a stale or passing one")
    func liftAfterFlat() {
        // Upright at 0, laid flat, turned half a turn on the table, lifted at 180.
        var trace = SyntheticTrace(rate: 100, angle: 0)
        trace.hold(1)
        trace.tilt(to: 88, over: 0.7)
        trace.hold(0.5)
        trace.turn(by: 180, over: 1.0)
        trace.hold(0.5)
        trace.tilt(to: 20, over: 0.7)
        let lifted = trace.time
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [.normal, .bottomUp])
        let change = published.rotationChanges.last
        #expect(change.map { $0.time < lifted + 0.25 } == true, "published at \(change?.time ?? -1), lifted at \(lifted)")
    }

    @Test("lifted in the orientation it was laid down in, nothing but the flat flag and tilt changes")
    func liftSameOrientation() {
        var trace = SyntheticTrace(rate: 50, angle: 270)
        trace.hold(1)
        trace.tilt(to: 87, over: 0.7)
        trace.hold(1)
        trace.tilt(to: 25, over: 0.7)
        trace.hold(1)
        let published = replay(trace.samples)
        #expect(published.rotations == [.rightUp])
        #expect(published.map(\.state.flat).contains(true))
        #expect(published.last?.state.flat == false)
    }
}
