import Foundation
import Testing
import TestSupport

/// Trace recording: a trace recorded from the live sensor replays to the same changes.
extension LiveSensorTests {
    @Test("a trace recorded from the live sensor replays to the same published changes, at the same times")
    func recordThenReplay() async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-roundtrip-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let live = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
            .set("iio:device0", ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]),
            .wait(.stdout(Self.bottomUp)),
            // A time, not a wait: the recording goes on past the last change, so its replay reaches it too.
            .sleep(0.3),
        ], arguments: ["--print", "--record", csv.path])
        #expect(live.failure == nil && live.status == 0, "\(live.transcript)")
        #expect(live.rotations == [0, 270, 180], "\(live.transcript)")

        let replay = try ChildProcess.run(BuiltProducts.require("rotationd"), ["--replay", csv.path])
        #expect(replay.status == 0, "\(replay)")
        let replayed = replay.out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }

        // The live run's changes of the engine's state (its first event only says the sensor is ok).
        func decision(_ e: [String: Any]) -> String {
            "\(e["rotation"] ?? "-") \(e["tilt"] ?? "-") \(e["flat"] ?? "-") \(e["inputs"] ?? "-")"
        }
        let liveChanges = live.events.filter { $0["type"] as? String == "state" && $0["sensor"] as? String == "ok" }.dropFirst()
        #expect(liveChanges.count >= 3, "\(live.transcript)")
        #expect(liveChanges.map(decision) == replayed.map(decision), "live:\n\(live.transcript)\nreplayed: \(replayed)")
        let liveTimes = liveChanges.compactMap { $0["t"] as? Double }, replayTimes = replayed.compactMap { $0["t"] as? Double }
        #expect(liveTimes.count == replayTimes.count && zip(liveTimes, replayTimes).allSatisfy { abs($0 - $1) < 1e-3 },
                "\(liveTimes) vs \(replayTimes)")
    }
}
