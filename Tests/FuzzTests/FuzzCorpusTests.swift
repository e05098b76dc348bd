import Foundation
import Testing
import TestSupport

/// The fuzz targets' seed corpora and past findings, replayed through the targets' own checks by the ordinary
/// (non-fuzzing) build of each target.
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let targets = ["fuzz-json", "fuzz-client-command", "fuzz-server-message", "fuzz-trace", "fuzz-sysfs-number",
                          "fuzz-mount-matrix", "fuzz-udev-properties", "fuzz-v4l2-controls"]

    @Test("Every input of a fuzz target's corpus passes the target's checks", arguments: targets)
    func corpusPasses(target: String) throws {
        let corpus = Self.root + "/Fuzz/corpus/" + target
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { !$0.hasPrefix(".") }
        #expect(inputs.count >= 3, "\(corpus) holds \(inputs.count) inputs")
        let r = try ChildProcess.run(try BuiltProducts.require(target), [corpus], timeout: Tolerance.longRun)
        #expect(r.status == 0 && (r.out + r.err).contains("\(inputs.count) inputs passed"), "\(target): \(r)")
    }

    @Test("make fuzz runs every fuzz target the package builds, and each has a seed corpus")
    func everyTargetIsFuzzed() throws {
        let manifest = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
        let declared = manifest.components(separatedBy: ".executableTarget(name: \"").dropFirst()
            .compactMap { $0.split(separator: "\"").first.map(String.init) }.filter { $0.hasPrefix("fuzz-") }
        #expect(Set(declared) == Set(Self.targets), "\(declared)")
        let script = try String(contentsOfFile: Self.root + "/scripts/fuzz.sh", encoding: .utf8)
        let all = script.split(separator: "\n").first { $0.hasPrefix("ALL=") }.map { $0.dropFirst(5).dropLast().split(separator: " ").map(String.init) }
        #expect(all.map(Set.init) == Set(Self.targets), "\(all ?? [])")
        let corpora = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Fuzz/corpus")
        #expect(Set(corpora) == Set(Self.targets), "\(corpora)")
    }
}
