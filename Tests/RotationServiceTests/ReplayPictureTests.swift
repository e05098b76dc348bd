import Foundation
import Testing
import TestSupport

/// `rotationd --replay TRACE --picture FILE.svg`: the same states printed, and a picture whose marks sit where
/// those states say.
@Suite("rotationd --replay --picture")
struct ReplayPictureTests {
    /// The trace's first sample's time.
    static func start(of trace: String) throws -> Double {
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        return try #require(text.split(separator: "\n").dropFirst().first.flatMap { Double($0.split(separator: ",")[0]) })
    }

    @Test("the picture of a replay marks each change and flat spell the replay prints, at its time, and the printed lines are unchanged",
          arguments: ["data/demo-50hz.csv", "data/demo-fold-50hz.csv"])
    func pictureAgreesWithTheReplay(trace: String) throws {
        let dir = try ScratchDirectory()
        let path = PackagePaths.root.appendingPathComponent(trace).path
        let plain = try ReplayCommandTests.rotationd(["--replay", path])
        let drawn = try ReplayCommandTests.rotationd(["--replay", path, "--picture", dir.path("p.svg")])
        #expect(plain.status == 0 && drawn.status == 0, "\(plain.err)\n\(drawn.err)")
        #expect(drawn.out == plain.out, "--picture changed what the replay prints")
        let states = drawn.out.split(separator: "\n").compactMap { JSONLine.object(String($0)) }
        #expect(states.count > 5)
        let picture = try PictureReading(svg: String(contentsOfFile: dir.path("p.svg"), encoding: .utf8))
        let problems = picture.mismatches(states: states, start: try Self.start(of: path))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(!picture.marks.isEmpty && picture.marks.count == Set(picture.marks.map(\.number)).count)
    }

    @Test("a picture that cannot be written exits 1 and says which file and why")
    func unwritablePicture() throws {
        let dir = try ScratchDirectory()
        let path = PackagePaths.root.appendingPathComponent("data/demo-50hz.csv").path
        let r = try ReplayCommandTests.rotationd(["--replay", path, "--picture", dir.path("no/such/dir/p.svg")])
        #expect(r.status == 1)
        #expect(r.err.contains("--picture: cannot create \(dir.path("no/such/dir/p.svg"))"), "\(r.err)")
    }
}
