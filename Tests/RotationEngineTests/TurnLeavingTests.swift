import Foundation
import Testing
@testable import RotationEngine
import RotationProtocol

/// The `turnLeaving` rule: a flick's far end is published while the device pauses there, or not at all; never as
/// the device turns back.
@Suite("Turn leaving")
struct TurnLeavingTests {
    /// An uncalibrated sensor's flicks at 100 Hz (`scripts/flawed-copies.py ../shared/traces OUT offset 18`, its
    /// copy of `flick-100hz-1`), with its labels: the third flick's far end is the one the settle rules let
    /// through at the first sample of the way back.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/traces/offset18-flick-100hz-1")

    /// What an engine with `configuration` publishes from `samples` read as `rotationd --replay` reads them, at
    /// the sampling policy's pace (`ReplayPace`).
    static func paced(_ samples: [Sample], _ configuration: EngineConfiguration) -> [Published] {
        var engine = OrientationEngine(configuration: configuration)
        var policy = SamplingPolicy()
        var pace = ReplayPace()
        var published: [Published] = []
        for s in samples where pace.reads(s.time) {
            if let state = engine.process(s) { published.append(Published(time: s.time, state: state)) }
            policy.update(s, engineQuiet: engine.isQuiet)
            pace.read(at: s.time, interval: policy.interval)
        }
        return published
    }

    /// Each flick's far end that `configuration` publishes after the flick's pause ended, as "T: R, the way back
    /// began at E".
    static func lateFarEnds(_ configuration: EngineConfiguration) throws -> [String] {
        let samples = try TraceFormat.parse(String(contentsOf: fixture.appendingPathExtension("csv"), encoding: .utf8))
        let labels = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.appendingPathExtension("labels.json")))
            as? [String: Any])
        let segments = try #require(labels["segments"] as? [[String: Any]])
        let changes = paced(samples, configuration).rotationChanges
        var late: [String] = []
        for (i, s) in segments.enumerated() where s["kind"] as? String == "flick" && i > 0 && i + 1 < segments.count {
            let farEnd = try #require(segments[i - 1]["to"] as? Int), back = try #require(s["end"] as? Double)
            let end = try #require(segments[i + 1]["end"] as? Double)
            for c in changes where c.rotation?.degrees == farEnd && c.time > back && c.time < end {
                late.append("\(c.time): \(farEnd), the way back began at \(back)")
            }
        }
        return late
    }

    @Test("a flick's far end is published in its pause or not at all, never as the device turns back; with the rule off, one is published on the way back")
    func farEndNeverOnTheWayBack() throws {
        #expect(try Self.lateFarEnds(.default) == [])
        var off = EngineConfiguration.default
        off.disabledRules = [.turnLeaving]
        #expect(try Self.lateFarEnds(off).count == 1, "the fixture no longer shows the late far end the rule is for")
    }
}
