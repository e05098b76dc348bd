import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Configuration")
struct ConfigurationTests {
    @Test("every threshold can be read and set by its documented name")
    func setByName() throws {
        var c = EngineConfiguration.default
        for (i, p) in EngineConfiguration.parameters.enumerated() {
            let v = Double(i) + 0.5
            try c.set(p.name, to: v)
            #expect(c.value(of: p.name) == v, "\(p.name)")
        }
        #expect(EngineConfiguration.parameters.count == Set(EngineConfiguration.parameters.map(\.name)).count)
    }

    @Test("an unknown name is an error that lists the valid names")
    func unknownName() {
        var c = EngineConfiguration.default
        #expect(throws: ConfigurationError.self) { try c.set("dwell", to: 1) }
        do { try c.set("dwell", to: 1) } catch {
            #expect(error.description.contains("dwellTime"))
            #expect(error.description.contains("settleRate"))
        }
    }

    @Test("negative or non-finite values are refused, and thresholds that contradict each other are reported")
    func badValues() {
        var c = EngineConfiguration.default
        #expect(throws: ConfigurationError.self) { try c.set("dwellTime", to: -1) }
        #expect(throws: ConfigurationError.self) { try c.set("dwellTime", to: .nan) }
        #expect(c == .default)
        c.flatExitAngle = 80
        #expect(c.validate() != nil)
        #expect(EngineConfiguration.default.validate() == nil)
    }

    @Test("a wider boundaryHysteresis keeps a rotation the default would change")
    func hysteresisConfigurable() throws {
        var trace = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        trace.hold(0.5)
        trace.turn(by: 70, over: 0.5)
        trace.hold(1)
        var wide = EngineConfiguration.default
        try wide.set("boundaryHysteresis", to: 30)
        #expect(replay(trace.samples).rotations == [.normal, .leftUp])
        #expect(replay(trace.samples, configuration: wide).rotations == [.normal])
    }

    @Test("a lower flatEnterAngle makes a reclined device flat, holding its rotation")
    func flatAngleConfigurable() throws {
        var trace = SyntheticTrace(rate: 50, angle: 0, noise: 0)
        trace.hold(0.5)
        trace.tilt(to: 60, over: 0.5)
        trace.hold(0.5)
        trace.turn(by: 90, over: 0.5)
        trace.hold(1)
        var c = EngineConfiguration.default
        try c.set("flatEnterAngle", to: 55)
        try c.set("flatExitAngle", to: 50)
        #expect(replay(trace.samples).rotations == [.normal, .leftUp])
        #expect(replay(trace.samples, configuration: c).rotations == [.normal])
    }

    @Test("a longer dwellTime delays the change by about the difference")
    func dwellConfigurable() throws {
        var trace = SyntheticTrace(rate: 100, angle: 0)
        trace.hold(1)
        trace.turn(by: 90, over: 0.4)
        trace.hold(2)
        var slow = EngineConfiguration.default
        try slow.set("dwellTime", to: 1.0)
        let fast = replay(trace.samples).rotationChanges.last?.time ?? 0
        let delayed = replay(trace.samples, configuration: slow).rotationChanges.last?.time ?? 0
        #expect(delayed - fast > 0.6)
    }

    @Test("a settleRate above the turn rate lets a steady spin publish as it goes; the default waits for it to stop")
    func settleRateConfigurable() throws {
        // A steady spin at 150°/s through a full turn, then a stop.
        var trace = SyntheticTrace(rate: 100, angle: 0, noise: 0)
        trace.hold(0.5)
        let a = trace.angle, e = trace.elevation
        trace.segment(2.4, pose: { u in (a + 360 * u, e) })
        let spinEnd = trace.time
        trace.hold(1)
        let during = { (c: EngineConfiguration) in
            replay(trace.samples, configuration: c).rotationChanges.filter { $0.time < spinEnd }.map(\.rotation)
        }
        #expect(during(.default) == [.normal])
        #expect(replay(trace.samples).rotations == [.normal])
        var lax = EngineConfiguration.default
        try lax.set("settleRate", to: 200)
        #expect(during(lax) == [.normal, .leftUp, .bottomUp, .rightUp, .normal])
    }

    @Test("motionTolerance decides which shakes freeze the filter")
    func motionToleranceConfigurable() throws {
        // A turn made while |a| swings 20 % off g: frozen at 15 % tolerance, published at 30 %.
        var trace = SyntheticTrace(rate: 100, angle: 0, noise: 0)
        trace.hold(1)
        let a = trace.angle, e = trace.elevation
        let dir = SyntheticTrace.gravityDirection(angle: 0, elevation: e)
        _ = dir
        trace.segment(2, pose: { u in (a + 90 * SyntheticTrace.ease(min(u * 4, 1)), e) }, extra: { t in
            SyntheticTrace.gravityDirection(angle: 90, elevation: e) * (2 * SyntheticTrace.sin(2 * Double.pi * 3 * t))
        })
        var tight = EngineConfiguration.default, loose = EngineConfiguration.default
        try tight.set("motionTolerance", to: 0.15)
        try loose.set("motionTolerance", to: 0.3)
        #expect(replay(trace.samples, configuration: tight).rotations == [.normal])
        #expect(replay(trace.samples, configuration: loose).rotations == [.normal, .leftUp])
    }

    @Test("values that leave the filter unable to decide are refused by validate, naming the setting and the valid range")
    func zeroValuesRefused() throws {
        for name in ["gravity", "motionTolerance", "settleRate", "maxGap", "fusionTime", "biasTime",
                     "fusedSettleRate", "gyroTimeout"] {
            var c = EngineConfiguration.default
            try c.set(name, to: 0)
            let problem = c.validate()
            #expect(problem?.reason.hasPrefix("\(name) must be more than 0") == true, "\(name): \(problem?.reason ?? "accepted")")
        }
        // Smoothing and the time rules may be switched off.
        for name in ["smoothingTime", "dwellTime", "settleTime", "rateSmoothingTime", "gyroRateSmoothingTime", "motionHoldoff"] {
            var c = EngineConfiguration.default
            try c.set(name, to: 0)
            #expect(c.validate() == nil, "\(name)")
        }
    }
}
