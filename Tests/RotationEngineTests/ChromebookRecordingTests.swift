import Foundation
import Testing
@testable import RotationEngine
import RotationProtocol

/// A Chromebook convertible's real recordings of its lid and base accelerometers, shaken and noisy, kept by
/// Chromium as its tablet-mode controller's test data (`../shared/traces-real/README.md`), replayed as
/// `rotationd --replay` reads them and judged by what Chromium's own tests assert about each, as
/// `../shared/eval/chromebook_score.py` judges them: the tablet-mode switch the posture gives (1 in stand, tent and
/// tablet, 0 in laptop and closed, kept while the posture is null) must hold Chromium's value.
@Suite("Chromebook recordings")
struct ChromebookRecordingTests {
    /// The recordings' directory: `traces-real/chromebook` in `ROTATIOND_SHARED` if set, else in `../shared` beside
    /// the repository, as the CI checks it out.
    static var directory: URL {
        let shared = ProcessInfo.processInfo.environment["ROTATIOND_SHARED"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")
        return shared.appendingPathComponent("traces-real/chromebook")
    }

    @Test("each recording holds the tablet mode Chromium asserts for it",
          arguments: ["laptop", "fully-open", "vertical-hinge", "vertical-hinge-unstable"])
    func holdsChromiumsTabletMode(name: String) throws {
        let base = Self.directory.appendingPathComponent(name)
        let csv = base.appendingPathExtension("csv"), labels = base.appendingPathExtension("labels.json")
        try #require(FileManager.default.fileExists(atPath: csv.path) && FileManager.default.fileExists(atPath: labels.path),
                     "the real recording \(name) is not at \(csv.path) (and its .labels.json beside it): check out the shared data as ../shared beside the repository, or set ROTATIOND_SHARED to its directory")
        let samples = try TraceFormat.parse(String(contentsOf: csv, encoding: .utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: labels)) as? [String: Any])
        let expect = try #require(json["expect"] as? [String: Any])
        let want = try #require(expect["tablet_mode"] as? Int)
        let start = try #require(expect["start"] as? Double), end = try #require(expect["end"] as? Double)

        // The switch value in force after each published state, as "T s: posture (switch)".
        var value: Int?
        var inForce: Int?, judged: [(time: Double, value: Int?, said: String)] = []
        for p in TurnLeavingTests.paced(samples, .default) {
            if let posture = p.state.fold.posture { value = posture.isTabletMode ? 1 : 0 }
            let said = "\(p.time) s: \(p.state.fold.posture.map { "\($0)" } ?? "null") (switch \(value.map(String.init) ?? "none"))"
            if p.time <= start {
                inForce = value
            } else if p.time <= end {
                judged.append((p.time, value, said))
            }
        }
        if want == 1 {
            #expect(inForce == 1, "\(name): tablet mode not in force at \(start) s (switch \(inForce.map(String.init) ?? "none"))")
        } else {
            #expect(inForce != 1, "\(name): tablet mode in force at \(start) s")
        }
        let wrong = judged.filter { want == 1 ? $0.value != 1 : $0.value == 1 }.map(\.said)
        #expect(wrong.isEmpty, "\(name): tablet mode not \(want) at \(wrong)")
    }
}
