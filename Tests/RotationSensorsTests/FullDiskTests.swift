import Foundation
import Testing
import TestSupport

/// `--record` onto a disk that fills up: a 4 KiB tmpfs, mounted in a private mount namespace for the run.
@Suite("A full disk under --record", .enabled(if: geteuid() == 0, "mounting a scratch tmpfs needs root"))
struct FullDiskTests {
    @Test("a disk that fills up under --record: one error naming the file and what it kept, the rotation goes on, and the file holds whole lines that replay")
    func recordOntoAFullDisk() throws {
        let rotationd = try BuiltProducts.require("rotationd")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-full-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for dir in ["disk", "kept"] {
            try FileManager.default.createDirectory(atPath: scratch + "/" + dir, withIntermediateDirectories: true)
        }
        let trace = scratch + "/disk/trace.csv"
        let steps: [Step] = [
            .start,
            .wait(.stdout(LiveSensorTests.normal)),
            .wait(.stderr("recording stopped", within: Tolerance.diskFills)),
            .set("iio:device0", LiveSensorTests.onda),
            .wait(.stdout(LiveSensorTests.rightUp)),
            .alive,
        ]
        // The trace is copied out of the tmpfs before the namespace, and the mount with it, goes away.
        let script = """
        mount -t tmpfs -o size=4k tmpfs "$1/disk" || exit 90
        umockdev-wrapper /usr/bin/python3 "$2" --device polled.umockdev --actions "$3" -- "$4" --print --record "$1/disk/trace.csv"
        status=$?
        cp "$1/disk/trace.csv" "$1/kept/trace.csv"
        exit $status
        """
        // The driver's steps bound the run.
        let run = try ChildProcess.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh", scratch,
                                                            Testbed.driver.path, Testbed.actions(steps), rotationd],
                                       directory: Testbed.fixtures.path, timeout: nil)
        #expect(run.status == 0, "\(run.out)\(run.err)")
        // The rotation went on being printed after the disk was full.
        #expect(run.out.contains(LiveSensorTests.rightUp), "\(run.out)\(run.err)")
        let errors = run.err.split(separator: "\n").filter { $0.hasPrefix("rotationd: error:") }
        #expect(errors.count == 1, "\(run.err)")
        let prefix = "rotationd: error: cannot write \(trace): No space left on device; recording stopped: the file keeps the "
        let kept = errors.first.flatMap { $0.hasPrefix(prefix) ? Int($0.dropFirst(prefix.count).prefix { $0.isNumber }) : nil }
        let samples = try #require(kept, "\(run.err)")
        #expect(samples > 10, "\(run.err)")

        let text = try String(contentsOfFile: scratch + "/kept/trace.csv", encoding: .utf8)
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == samples + 1, "\(samples) samples, file:\n\(text.suffix(300))")
        let replay = try ChildProcess.run(rotationd, ["--replay", scratch + "/kept/trace.csv"])
        #expect(replay.status == 0, "\(replay.err)")
        #expect(replay.out.contains("\"rotation\":0,"), "\(replay.out)")
    }
}
