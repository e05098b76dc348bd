import Foundation
import Testing
import TestSupport

/// `rotationd` refuses options that the chosen mode would ignore, instead of running without them.
@Suite("Option combinations")
struct OptionCombinationTests {
    @Test("a meaningless combination exits 2 with a usage error naming the ignored option", arguments: [
        (["--serve", "--record", "/tmp/rotationd-never-written.csv"], "--record cannot be combined with serving"),
        (["--replay", "/tmp/rotationd-no-such-trace.csv", "--record", "/tmp/rotationd-never-written.csv"],
         "--record records the live sensor and cannot be combined with --replay"),
        (["--list", "--serve"], "--serve cannot be combined with --list"),
        (["--print", "--always"], "--always applies only when serving"),
        (["--print", "--realtime"], "--realtime applies only to --replay"),
        (["--replay", "/tmp/rotationd-no-such-trace.csv", "--tablet-mode-switch"], "--tablet-mode-switch applies to the live sensor, not to --replay"),
        (["--list", "--tablet-mode-switch"], "--tablet-mode-switch cannot be combined with --list"),
        (["--replay", "/tmp/rotationd-no-such-trace.csv", "--rate", "30"], "--rate applies to the live sensor, not to --replay"),
        (["--replay", "/tmp/rotationd-no-such-trace.csv", "--speed", "2"], "--speed paces a replay"),
        (["--fix-mount", "--print"], "--print cannot be combined with --fix-mount"),
        (["--fix-mount", "--yes", "--rate", "30"], "--rate cannot be combined with --fix-mount"),
        (["--list", "--yes"], "--yes applies only to --fix-mount"),
        (["--print", "--picture", "/tmp/rotationd-never-written.svg"], "--picture draws a printed --replay"),
        (["--replay", "/tmp/rotationd-no-such-trace.csv", "--serve", "--picture", "/tmp/rotationd-never-written.svg"],
         "--picture draws a printed --replay"),
        (["--record", "/tmp/rotationd-never-written.csv", "--duration", "5"], "--duration applies only to --report"),
        (["--report", "/tmp/rotationd-never-written", "--list"], "--list cannot be combined with --report"),
        (["--report", "/tmp/rotationd-never-written", "--serve"], "--serve cannot be combined with --report"),
        (["--report", "/tmp/rotationd-never-written", "--duration", "601"], "--duration 601: expected seconds to record, more than 0 and at most 600"),
    ])
    func refused(arguments: [String], message: String) throws {
        let r = try ChildProcess.run(BuiltProducts.require("rotationd"), arguments)
        #expect(r.status == 2, "\(arguments): \(r.err)")
        #expect(r.err.hasPrefix("rotationd: \(message)"), "\(arguments): \(r.err)")
        for never in ["/tmp/rotationd-never-written.csv", "/tmp/rotationd-never-written.svg", "/tmp/rotationd-never-written"] {
            #expect(!FileManager.default.fileExists(atPath: never))
        }
    }

    @Test("a combination that means something still runs: --replay with --realtime and --speed")
    func acceptedCombination() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-combo-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: trace) }
        let rows = (0..<20).map { "\(Double($0) / 50),0,-9.81,0" }
        try (["t,x,y,z"] + rows).joined(separator: "\n").appending("\n").write(to: trace, atomically: false, encoding: .utf8)
        let r = try ChildProcess.run(BuiltProducts.require("rotationd"), ["--replay", trace.path, "--realtime", "--speed", "4"])
        #expect(r.status == 0, "\(r.err)")
    }
}
