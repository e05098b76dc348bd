import Glibc
import RotationProtocol
@testable import RotationSensors
import Testing

@Suite("Holding a pose still")
struct PoseHoldTests {
    static let upright = Vector3(0, -9.8, 0), faceUp = Vector3(0, 0, 9.8)

    /// Feeds `reading(t)` every 40 ms from `from` to `to` s; the phases seen, in order, repeats collapsed
    /// (progress left out).
    static func feed(_ hold: inout PoseHold, from: Double, to: Double, _ reading: (Double) -> Vector3) -> [String] {
        var seen: [String] = []
        var t = from
        while t <= to + 1e-9 {
            let name: String
            switch hold.add(reading(t), at: t) {
            case .turning: name = "turning"
            case .settling: name = "settling"
            case .measuring: name = "measuring"
            case .held: name = "held"
            case .moved: name = "moved"
            }
            if seen.last != name { seen.append(name) }
            t += 0.04
        }
        return seen
    }

    @Test("a still device settles in 0.4 s, is measured for 1 s, and is held at its mean reading")
    func stillDeviceIsHeld() throws {
        var hold = PoseHold()
        let phases = Self.feed(&hold, from: 0, to: 2) { t in Self.upright + Vector3(0.05 * sin(t * 60), 0, 0) }
        #expect(phases == ["settling", "measuring", "held"])
        guard case .held(let reading, let spread) = hold.phase else { Issue.record("\(hold.phase)"); return }
        #expect(MountSolver.angle(reading, Self.upright) < 0.5 && spread < 1)
    }

    @Test("the progress rises from 0 to 1 while settling, and again while measuring")
    func progressRises() {
        var hold = PoseHold()
        var settling: [Double] = [], measuring: [Double] = []
        var t = 0.0
        while t < 1.6 {
            switch hold.add(Self.upright, at: t) {
            case .settling(let p): settling.append(p)
            case .measuring(let p): measuring.append(p)
            default: break
            }
            t += 0.04
        }
        #expect(settling == settling.sorted() && settling.count >= 9 && settling.last! > 0.85)
        #expect(measuring == measuring.sorted() && measuring.count >= 20 && measuring.last! > 0.9)
    }

    @Test("a device that keeps moving never settles")
    func movingDeviceNeverSettles() {
        var hold = PoseHold()
        let phases = Self.feed(&hold, from: 0, to: 5) { t in Vector3(9.8 * sin(t), -9.8 * cos(t), 0) }
        #expect(phases == ["settling"])
    }

    @Test("a move of 20° while measuring ends the hold as moved, with the angle")
    func moveWhileMeasuring() {
        var hold = PoseHold()
        let tilted = Vector3(9.8 * sin(0.35), -9.8 * cos(0.35), 0)
        let phases = Self.feed(&hold, from: 0, to: 2) { t in t < 0.9 ? Self.upright : tilted }
        #expect(phases == ["settling", "measuring", "moved"])
        guard case .moved(let degrees) = hold.phase else { Issue.record("\(hold.phase)"); return }
        #expect(abs(degrees - 20) < 1)
    }

    @Test("after a pose, the next waits for the device to turn 30° away from it before it settles")
    func turnsAwayFirst() {
        var hold = PoseHold(leaving: Self.faceUp)
        #expect(Self.feed(&hold, from: 0, to: 3) { _ in Self.faceUp + Vector3(0.3, 0, 0) } == ["turning"])
        #expect(Self.feed(&hold, from: 3, to: 5) { _ in Self.upright } == ["settling", "measuring", "held"])
    }

    @Test("unusable readings (zero) are ignored")
    func zeroIgnored() {
        var hold = PoseHold()
        #expect(Self.feed(&hold, from: 0, to: 2) { _ in .zero } == ["settling"])
    }
}
