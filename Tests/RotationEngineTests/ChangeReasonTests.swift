import Testing
@testable import RotationEngine
import RotationProtocol


/// The rotation changes among `changes`, with their reasons.
private func rotations(_ changes: [Published])
    -> [(time: Double, rotation: Rotation?, reason: RotationReason?)] {
    var last: Rotation?
    var out: [(time: Double, rotation: Rotation?, reason: RotationReason?)] = []
    for c in changes where c.state.rotation != last {
        last = c.state.rotation
        out.append((c.time, c.state.rotation, c.reason.rotation))
    }
    return out
}

@Suite("Reasons: the rule behind each published change")
struct ChangeReasonTests {
    /// Upright for a second, a quarter turn clockwise over `seconds`, then still.
    static func quarterTurn(over seconds: Double, withGyro: Bool = false) -> [Sample] {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, withGyro: withGyro)
        trace.hold(1)
        trace.turn(by: 90, over: seconds)
        trace.hold(1)
        return trace.samples
    }

    @Test("the first decision is the first, with nothing that proposed it, let through once the device settled")
    func firstDecision() throws {
        let first = try #require(rotations(replay(Self.quarterTurn(over: 0.6))).first)
        #expect(first.rotation == .normal)
        let reason = try #require(first.reason)
        #expect(reason.isFirst && reason.proposedBy == nil && reason.proposedAt == nil)
        #expect(reason.passedBy == .settled && reason.rule == .settled)
    }

    @Test("a quarter turn is proposed by the diagonal, waits on a rule, and is let through where it brakes or settles")
    func quarterTurnReason() throws {
        let turned = try #require(rotations(replay(Self.quarterTurn(over: 0.6))).last)
        #expect(turned.rotation == .leftUp)
        let reason = try #require(turned.reason)
        #expect(reason.proposedBy == .diagonalHysteresis)
        let proposed = try #require(reason.proposedAt)
        // Proposed past the diagonal during the turn, published at least the dwell time later.
        #expect(proposed > 1 && proposed < turned.time)
        #expect(turned.time - proposed >= EngineConfiguration.default.dwellTime - 1e-9)
        #expect(reason.heldBy != nil, "a turn through the diagonal cannot pass at the sample that first proposes it")
        #expect([DecisionRule.settled, .turnEnding].contains(reason.passedBy))
        #expect(reason.rule == (reason.passedBy == .turnEnding ? .turnEnding : reason.heldBy))
    }

    @Test("a turn that brakes into its quadrant is let through by turnEnding; with that rule off, by settled, later")
    func turnEndingNamed() throws {
        let samples = Self.quarterTurn(over: 0.4)
        let with = try #require(rotations(replay(samples)).last)
        var off = EngineConfiguration.default
        off.disabledRules = [.turnEnding]
        let without = try #require(rotations(replay(samples, configuration: off)).last)
        #expect(with.reason?.passedBy == .turnEnding && with.reason?.rule == .turnEnding)
        #expect(without.reason?.passedBy == .settled && without.reason?.rule != .turnEnding)
        #expect(without.time > with.time)
    }

    @Test("laying the device flat names flatEnterAngle, lifting it flatExitAngle; the rotation holds meanwhile")
    func flatNamed() throws {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20)
        trace.hold(1)
        trace.tilt(to: 88, over: 0.8)
        trace.hold(1)
        trace.tilt(to: 20, over: 0.8)
        trace.hold(1)
        let flatChanges = replay(trace.samples).filter { $0.reason.flat != nil }
        #expect(flatChanges.map(\.state.flat) == [true, false])
        #expect(flatChanges.map(\.reason.flat) == [.flatEnterAngle, .flatExitAngle])
        #expect(flatChanges.allSatisfy { $0.reason.rotation == nil })
    }

    @Test("a change of the tilt class alone carries no reason")
    func tiltAloneHasNone() {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 5)
        trace.hold(1)
        trace.tilt(to: 40, over: 0.8)
        trace.hold(1)
        let all = replay(trace.samples)
        #expect(all.count == 2, "\(all.map(\.state))")
        #expect(all.last?.state.tilt == .tiltedUp)
        #expect(all.last?.reason == ChangeReason())
    }

    @Test("a gyroscope that stops reading changes the inputs, named inputsHold; the first state's inputs are no change")
    func inputsNamed() throws {
        var trace = SyntheticTrace(rate: 50, angle: 0, elevation: 20, withGyro: true)
        trace.hold(1.5)
        var samples = trace.samples
        var plain = SyntheticTrace(rate: 50, angle: 0, elevation: 20)
        plain.hold(1)
        let offset = (samples.last?.time ?? 0) + 0.02
        samples += plain.samples.map { var s = $0; s.time += offset; return s }
        let all = replay(samples)
        #expect(all.first?.state.inputs == .accelGyro && all.first?.reason.inputs == nil)
        let inputChanges = all.filter { $0.reason.inputs != nil }
        #expect(inputChanges.map(\.state.inputs) == [.accel])
        #expect(inputChanges.first?.reason.inputs == .inputsHold)
    }

    @Test("a fold names each posture's threshold and where the angle was read")
    func postureNamed() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(1)
        trace.move(to: 250, over: 1.5)
        trace.hold(1.5)
        trace.move(to: 350, over: 1)
        trace.hold(1.5)
        trace.move(to: 110, over: 2)
        trace.hold(1.5)
        let postures = replay(trace.samples).filter { $0.reason.posture != nil }
        // The base lies face up: folded past flat, the display leans back with its top down, a tent, until it
        // rises past upright on the way back (a stand).
        #expect(postures.map(\.state.fold.posture) == [.laptop, .tent, .tablet, .tent, .stand, .laptop])
        #expect(postures.map(\.reason.posture?.rule) == [.closedLeave, .foldedEnter, .tabletEnter, .tabletLeave, .tentShare, .foldedLeave])
        #expect(postures.allSatisfy { $0.reason.posture?.source == .accelerometers })
    }

    @Test("a hinge sensor's angle and the lid switch are named as the posture's source")
    func postureSources() {
        var trace = FoldTrace(hinge: 110)
        trace.hingeSensor = 110
        trace.hold(1)
        trace.lidClosed = true
        trace.hold(1)
        let postures = replay(trace.samples).filter { $0.reason.posture != nil }
        #expect(postures.map(\.state.fold.posture) == [.laptop, .closed])
        #expect(postures.map(\.reason.posture) == [PostureReason(source: .hingeSensor, rule: .closedLeave),
                                                   PostureReason(source: .switches, rule: .lidSwitch)])
    }
}
