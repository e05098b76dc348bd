import Foundation
import Testing
import TestSupport

/// rotationd beside the other programs that read the same accelerometer on a desktop, on each driver of the zoo:
/// a raw poller (rot8 and shell scripts read in_accel_*_raw) and iio-sensor-proxy itself (the real one, Debian's
/// 3.0, claimed by `monitor-sensor --accel`), all inside one umockdev testbed under the kernel's refusals
/// (`Tests/Testbed/kernel`: a raw read while a raw-busy driver's buffer runs is EBUSY, and a device node is
/// held by one open file at a time). The steps that start them are the driver's `raw-poller` and `sensor-proxy`
/// (`Tests/Testbed/umockdev-driver.py`).
///
/// The four-poses trace is played into the sensors; a neighbour must go on seeing every pose while rotationd runs,
/// and rotationd must report them too.
@Suite("Neighbours: rotationd beside a raw poller and beside iio-sensor-proxy, each on the zoo's drivers")
struct NeighbourTests {
    static let drivers = ["hid-sensor", "bmc150-dual", "kxcjk-1013", "mxc4005", "st_accel", "cros-ec", "inv_mpu6050",
                          "bmi323", "st_lsm6dsx", "mma8452"]

    /// When each turn of `zoo/four-poses.csv` starts, s into the trace, and how long it takes: the trace's
    /// gravity leaves the pose 0.05 s after the start and is in the next one 0.6 s after it.
    static let turns = DriverZooTests.turns
    static let turnLength = 0.6
    /// The pose each turn ends in: rotationd's rotation and iio-sensor-proxy's name for it.
    static let poses = [(90, "left-up"), (180, "bottom-up"), (270, "right-up"), (0, "normal")]
    /// How long after a turn ends iio-sensor-proxy may report its pose: it reads every 700 ms.
    static let proxyLate = Tolerance.sensorProxyLatency
    /// How long after a turn ends rotationd must have published its rotation (the 95th percentile of the turns).
    static let rotationdLate = Tolerance.rotationdBesideNeighbour
    /// Until when the trace is played before rotationd is stopped, s into it: the last turn ends at 14.25 s.
    static let playedFor = 16.5

    /// What the neighbours reported, from the driver's results.
    struct Neighbourhood {
        /// When the trace's time 0 was (CLOCK_MONOTONIC, s), after the hold while rotationd started.
        var start: Double
        /// Each orientation monitor-sensor reported, with its arrival (CLOCK_MONOTONIC, s).
        var proxy: [(t: Double, orientation: String)] = []
        /// The raw poller's reads (each attribute counting once), those that failed with EBUSY, and other failures.
        var poller: (reads: Int, busy: Int, other: Int)?

        init(_ r: Testbed.Result) throws {
            start = try #require(r.traceStart(before: NeighbourTests.turns[0]), "the trace never started, or was held after its first turn: \(r.transcript)")
            proxy = r.results.sensorProxyOrientations.map { ($0.at, $0.orientation) }
            poller = r.results.rawPollerSummaries.last.map { ($0.reads, $0.ebusy, $0.other) }
        }

        /// The end of each turn (CLOCK_MONOTONIC, s).
        var turnEnds: [Double] { NeighbourTests.turns.map { start + $0 + NeighbourTests.turnLength } }

        /// iio-sensor-proxy's orientations in order, repeats collapsed, the undefined ones it starts with left out.
        var proxyOrientations: [String] {
            var out: [String] = []
            for (_, o) in proxy where out.last != o && !(out.isEmpty && o == "undefined") { out.append(o) }
            return out
        }

        /// For each turn, how long after it ended iio-sensor-proxy first reported its pose (nil: never, after the
        /// turn started).
        var proxyLatencies: [Double?] {
            zip(NeighbourTests.turns, NeighbourTests.poses).map { turn, pose in
                proxy.first { $0.t > start + turn && $0.orientation == pose.1 }
                    .map { $0.t - (start + turn + NeighbourTests.turnLength) }
            }
        }

        /// For each turn, how long after it ended rotationd first published its rotation (nil: never).
        func rotationdLatencies(_ r: Testbed.Result) -> [Double?] {
            zip(NeighbourTests.turns, NeighbourTests.poses).map { turn, pose in
                r.events.first { ($0["t"] as? Double ?? 0) > start + turn && $0["rotation"] as? Int == pose.0 }
                    .flatMap { $0["t"] as? Double }.map { $0 - (start + turn + NeighbourTests.turnLength) }
            }
        }
    }

    /// The nearest-rank 95th percentile; nil when a value is missing. With four turns it is the slowest.
    static func p95(_ values: [Double?]) -> Double? {
        let known = values.compactMap { $0 }
        guard known.count == values.count, !known.isEmpty else { return nil }
        let sorted = known.sorted()
        return sorted[Int((0.95 * Double(sorted.count)).rounded(.up)) - 1]
    }

    static func text(_ values: [Double?]) -> String {
        "[" + values.map { $0.map { String(format: "%.3f", $0) } ?? "never" }.joined(separator: ", ") + "]"
    }

    /// The devices whose buffer a neighbour enabled (iio-sensor-proxy enables an iio-buffer-accel's at its start).
    static func neighbourBuffers(_ r: Testbed.Result) -> Set<String> {
        Set(r.neighbourWrites.filter { $0.file == "buffer/enable" && $0.value == "1" && $0.result == "ok" && $0.why == nil }.map(\.device))
    }

    /// rotationd's writes of "0" to the buffer/enable of a device whose buffer a neighbour enabled, while rotationd
    /// had not enabled it itself: another program's buffer stopped under it. (A "0" written to a buffer nobody
    /// enabled changes nothing, and is not counted.)
    static func foreignDisables(_ r: Testbed.Result) -> [String] {
        let theirs = neighbourBuffers(r)
        var mine = Set<String>(), out: [String] = []
        for write in r.kernelWrites where write.file == "buffer/enable" {
            let device = write.device, accepted = !write.refused
            if write.value == "1" {
                if accepted { mine.insert(device) }
            } else if write.value == "0" {
                if theirs.contains(device) && !mine.contains(device) { out.append(write.description) }
                if accepted { mine.remove(device) }
            }
        }
        return out
    }

    /// The buffer/enable writes rotationd made, as "DEVICE VALUE" in order ("iio:device0 1").
    static func bufferWrites(_ r: Testbed.Result) -> [String] {
        r.kernelWrites.compactMap { w in
            guard w.file == "buffer/enable", w.result == "ok", let value = w.value else { return nil }
            return "\(w.device) \(value)"
        }
    }

    @Test("each driver: a poller reading in_accel_*_raw every 0.5 s beside rotationd never meets EBUSY, and rotationd reports the four poses", arguments: drivers)
    func besideRawPoller(driver: String) async throws {
        let display = try Sidecar.zoo(driver).expectation().display
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: [
            .rawPoller(display, interval: 0.5),
            .start,
            // Upright until rotationd reports it, however late a loaded machine starts it.
            .play("zoo/four-poses.csv", seconds: 25, holdUntil: .stdout("\"rotation\":0,", within: Tolerance.slowReply)),
            .waitPlay(Self.playedFor),
            .stop,
        ], arguments: ["--print"])
        let n = try Neighbourhood(r)
        let poller = try #require(n.poller, "the raw poller reported nothing: \(r.transcript)")
        let late = n.rotationdLatencies(r)
        let writes = Self.bufferWrites(r)
        print("neighbours: \(driver) beside a raw poller: \(poller.reads) reads, \(poller.busy) EBUSY, \(poller.other) other failures; rotationd \(r.rotations), \(Self.text(late)) s after each turn; rotationd's buffer/enable writes: \(writes.filter { $0.hasSuffix(" 1") }.count) of 1, \(writes.filter { $0.hasSuffix(" 0") }.count) of 0")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90, 180, 270, 0], "\(r.transcript)")
        #expect(poller.busy == 0, "\(poller.busy) of the poller's \(poller.reads) raw reads failed with EBUSY: \(r.transcript)")
        #expect(poller.other == 0 && poller.reads >= 60, "\(r.transcript)")
    }

    @Test("each driver: iio-sensor-proxy, claimed first, reports every pose within 1.5 s of its turn while rotationd joins and reports them within 0.3 s, and rotationd never disables the buffer iio-sensor-proxy enabled", arguments: drivers)
    func besideSensorProxy(driver: String) async throws {
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: [
            .sensorProxy(within: Tolerance.sensorProxyStart),
            // Upright until rotationd reports it, however late a loaded machine starts it: the hold's timeout
            // covers iio-sensor-proxy's report (5 s) and rotationd's (10 s).
            .play("zoo/four-poses.csv", seconds: 25, holdUntil: .stdout("\"rotation\":0,", within: Tolerance.reply + Tolerance.slowReply)),
            .wait(.proxy("orientation changed: normal")),
            .start,
            .waitPlay(Self.playedFor),
            .stop,
        ], arguments: ["--print"])
        let n = try Neighbourhood(r)
        let proxyLate = n.proxyLatencies, late = n.rotationdLatencies(r)
        let disables = Self.foreignDisables(r)
        let writes = Self.bufferWrites(r)
        let proxyRefused = r.neighbourOpens.count
        print("neighbours: \(driver) beside iio-sensor-proxy: proxy \(n.proxyOrientations), \(Self.text(proxyLate)) s after each turn; rotationd \(r.rotations), \(Self.text(late)) s after each turn; rotationd's buffer/enable writes: \(writes.filter { $0.hasSuffix(" 1") }.count) of 1, \(writes.filter { $0.hasSuffix(" 0") }.count) of 0, \(disables.count) of them stopping the buffer iio-sensor-proxy enabled (\(Self.neighbourBuffers(r).sorted())); node opens refused: rotationd \(r.kernelOpens.count), iio-sensor-proxy \(proxyRefused)")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(n.proxyOrientations == ["normal", "left-up", "bottom-up", "right-up", "normal"], "\(r.transcript)")
        for (turn, latency) in zip(Self.turns, proxyLate) {
            #expect(latency.map { $0 <= Self.proxyLate } == true,
                    "iio-sensor-proxy reported the turn at \(turn) s \(Self.text([latency])) s after it ended: \(r.transcript)")
        }
        #expect(r.rotations == [0, 90, 180, 270, 0], "\(r.transcript)")
        let p95 = Self.p95(late)
        #expect(p95.map { $0 <= Self.rotationdLate } == true, "rotationd's rotations \(Self.text(late)) s after each turn ended: \(r.transcript)")
        #expect(disables.isEmpty, "rotationd disabled a buffer iio-sensor-proxy had enabled: \(disables): \(r.transcript)")
    }
}
