import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The sampling policy in a replay: the samples a live capture would skip while the device is still are
/// skipped, by the trace's own timestamps; `--full-rate` feeds them all.
@Suite("Sampling policy in a replay", .serialized)
struct ReplayPolicyTests {
    /// Serves `trace` with `extra` options, subscribes to raw samples, and returns the trace time of every sample
    /// received until the replay has ended (served, a sample's `t` is on CLOCK_MONOTONIC: it is carried back).
    static func sampleTimes(trace: String, extra: [String], in dir: ScratchDirectory, tag: String) throws -> [Double] {
        let run = try ServiceRun(trace: trace, socket: dir.path("\(tag).sock"), extra: extra, in: dir, tag: tag)
        #expect(run.waitUntilServing())
        let clock = try #require(run.replayClock(), "\(run.child.stderr)")
        let c = try TestSocket(path: run.socket)
        c.send("{\"cmd\":\"subscribe\",\"events\":[\"state\",\"samples\"]}\n")
        var times: [Double] = []
        let deadline = Date().addingTimeInterval(Tolerance.longRun)
        while Date() < deadline {
            guard let line = c.readLine(timeout: Tolerance.quiet) else {
                if run.child.stderr.contains("replay finished") { break }
                continue
            }
            if let o = JSONLine.object(line), o["type"] as? String == "sample", let t = o["t"] as? Double { times.append((clock.traceTime(t) * 10_000).rounded() / 10_000) }
        }
        #expect(run.child.stderr.contains("replay finished"), "\(run.child.stderr)")
        #expect(run.child.stop() == 0)
        return times
    }

    static func gaps(_ times: [Double], from: Double, to: Double) -> [Double] {
        let inside = times.filter { $0 >= from && $0 <= to }
        return zip(inside.dropFirst(), inside).map { $0 - $1 }
    }

    @Test("a served replay reads a still trace once every 0.4 s, and every sample from the first one that moved; --full-rate reads them all",
          .enabled(if: geteuid() == 0, "raw samples are for root"))
    func servedReplaySkipsWhileStill() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        // 3 s upright, then left edge up for 2 s, at 100 Hz.
        try SyntheticTraces.write(to: trace, lead: 3, poses: [Pose.leftUp], hold: 2)
        let paced = try Self.sampleTimes(trace: trace, extra: [], in: dir, tag: "paced")
        let still = Self.gaps(paced, from: 1.8, to: 2.95)  // slow from 1.4 s: 1 g learned, then settled
        #expect(!still.isEmpty && still.allSatisfy { $0 > 0.35 && $0 < 0.45 }, "gaps while still: \(still)")
        let turned = try #require(paced.firstIndex { $0 >= 3 }, "no sample after the turn: \(paced)")
        #expect(paced[turned] - 3 <= 0.4 + 1e-6)
        #expect(turned + 1 < paced.count && paced[turned + 1] - paced[turned] < 0.015, "\(paced.suffix(from: turned).prefix(4))")

        let full = try Self.sampleTimes(trace: trace, extra: ["--full-rate"], in: dir, tag: "full")
        let all = Self.gaps(full, from: 1, to: 4.9)
        #expect(all.count > 300 && all.allSatisfy { $0 < 0.015 }, "\(all.count) gaps, largest \(all.max() ?? -1)")
    }

    @Test("a printed replay gives the same decisions with the policy as with --full-rate on a trace of turns after stillness")
    func printedReplaySameDecisions() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.write(to: trace, lead: 2, poses: [Pose.leftUp, Pose.bottomUp, Pose.rightUp, Pose.upright], hold: 2)
        let rotations = { (args: [String], tag: String) throws -> [(Double, Int)] in
            let c = try ChildProcess(PackagePaths.binary("rotationd"), ["--replay", trace] + args, in: dir, tag: tag)
            #expect(c.wait(timeout: Tolerance.longRun) == 0)
            return c.stdout.split(separator: "\n").compactMap { JSONLine.object(String($0)) }
                .compactMap { o in (o["t"] as? Double).flatMap { t in (o["rotation"] as? Int).map { (t, $0) } } }
        }
        let paced = try rotations([], "paced")
        let full = try rotations(["--full-rate"], "full")
        #expect(full.map(\.1) == [0, 90, 180, 270, 0])
        #expect(paced.map(\.1) == full.map(\.1))
        // Each pose begins after stillness, so its first read may come up to one slow interval late (or, for a
        // jump with no turn in between, a little sooner, the jump being seen over a longer step).
        for (p, f) in zip(paced, full) { #expect(abs(p.0 - f.0) <= 0.41, "\(p.0) vs \(f.0)") }
    }
}
