import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing
import TestSupport

extension MountFixTests {
    /// Each `row N: TEXT` the tmux probe printed (a row of the screen that changed), in order.
    static func rows(_ r: Testbed.Result) -> [(row: Int, text: String)] {
        r.stdout.compactMap { line -> (row: Int, text: String)? in
            guard line.hasPrefix("row "), let colon = line.firstIndex(of: ":"), let n = Int(line.dropFirst(4)[..<colon]) else { return nil }
            return (n, String(line[line.index(after: colon)...].dropFirst()))
        }
    }

    /// The percentage a progress row shows (`[####----]  42%`), or nil.
    static func percent(_ text: String) -> Int? {
        guard let close = text.firstIndex(of: "]"), let sign = text.firstIndex(of: "%"), close < sign else { return nil }
        return Int(text[text.index(after: close)..<sign].trimmingCharacters(in: .whitespaces))
    }

    @Test("in a terminal, as a person uses it: Enter starts it, each pose's progress bar fills in place on one row with a turning spinner, a y at the prompt installs the entry, and the check ends it")
    func inATerminal() async throws {
        let scratch = try Scratch()
        let socket = "/tmp/rotationd-tmux-\(UUID().uuidString.prefix(8)).sock"
        let truth = SignedPermutation.all[29]
        func keys(_ keys: String...) -> Step { .exec(["tmux", "-S", socket, "send-keys", "-t", "pane"] + keys) }
        var steps: [Step] = [.set("iio:device0", Self.raw(Self.display[0], truth: truth)), .start,
                             .wait(.stdout("Press Enter to start", within: Tolerance.slowReply)), keys("Enter")]
        steps += Self.hold("iio:device0", Self.display, truth: truth)
        steps += [.wait(.stdout("\\[y/N\\]", within: Tolerance.slowReply)), keys("y", "Enter"),
                  .wait(.stdout("Check:", within: Tolerance.slowReply)), .set("iio:device0", Self.raw(Self.display[0], truth: truth)),
                  .wait(.stdout("^pane: exited 0$", within: Tolerance.slowReply)), .exit(within: Tolerance.slowReply)]
        let rotationd = try BuiltProducts.require("rotationd")
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"], steps: steps,
                                      arguments: [Testbed.probes.appendingPathComponent("tmux-pane.py").path, socket, "--", rotationd, "--fix-mount"],
                                      environment: ["ROTATIOND_ROOT": scratch.path], program: "/usr/bin/python3")
        #expect(r.failure == nil && r.results.exitStatus == 0, "\(String(describing: r.failure)) \(r.transcript)")
        let rows = Self.rows(r)
        // Pose 1's bar: every drawing of it on one row, its percentage rising to 100, its spinner turning.
        let first = try #require(rows.firstIndex { $0.text.contains("pose 1 of 3") }, "\(r.transcript)")
        let held = try #require(rows.firstIndex { $0.text.contains("pose 1 held") }, "\(r.transcript)")
        let bars = rows[first..<held].filter { Self.percent($0.text) != nil }
        #expect(Set(bars.map(\.row)).count == 1, "the bar moved between rows: \(bars)")
        let percents = bars.compactMap { Self.percent($0.text) }
        #expect(percents.count >= 5 && percents == percents.sorted() && percents.last == 100, "\(percents)")
        #expect(Set(bars.compactMap { $0.text.dropFirst(2).first }).isSuperset(of: ["|", "/", "-"]), "\(bars)")
        #expect(rows.contains { $0.text.hasSuffix("and reload udev's database? [y/N] y") }, "\(r.transcript)")
        #expect(rows.contains { $0.text.contains("it reads upright through the new matrix: fixed.") }, "\(r.transcript)")
        #expect(try Self.entryMatrix(scratch.hwdb, match: Self.match) == truth)
    }
}
