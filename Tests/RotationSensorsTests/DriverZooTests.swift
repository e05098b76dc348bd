import Foundation
import Testing
import TestSupport

/// Ten drivers that Linux tablets, convertibles and phones ship, each emulated as its kernel source lays it out
/// (`Tests/fixtures/zoo`: a `.umockdev` file and a `.json` sidecar naming the kernel files, what the hardware
/// reads, the driver's refusals and what a run must show), with writes refused as the kernel refuses them
/// (`Tests/Testbed/kernel`).
@Suite("Real drivers: emulated from their kernel sources, with the kernel's refusals")
struct DriverZooTests {
    /// The fixtures a correct sensor runs end to end with.
    static let drivers = ["hid-sensor", "hid-sensor-hysteresis", "bmc150-dual", "kxcjk-1013", "mxc4005", "mxc4005-noirq", "st_accel",
                          "cros-ec", "cros-ec-location", "inv_mpu6050", "bmi323", "st_lsm6dsx", "st_lsm6dsx-noirq",
                          "mma8452", "inv_mpu6050-gyro-scale-x1000"]

    /// When each turn of `zoo/four-poses.csv` starts, s into the trace (each takes 0.6 s; the poses between
    /// are held).
    static let turns = [3.0, 6.6, 10.2, 13.8]

    @Test("each driver: the display accelerometer is found and read buffered where its driver allows, the four poses come in turn, the gyroscope is fused where there is one and stays fused, no write is refused, nothing else is warned about, and every setting is put back", arguments: drivers)
    func fourPoses(driver: String) async throws {
        let expect = try Sidecar.zoo(driver).expectation()
        // Upright until rotationd reports it, however late a loaded machine starts it.
        var steps: [Step] = [.start, .play("zoo/four-poses.csv", seconds: 25, holdUntil: .stdout("\"rotation\":0,", within: Tolerance.slowReply))]
        for rotation in [90, 180, 270, 0] { steps.append(.wait(.stdout("\"rotation\":\(rotation),", within: Tolerance.slowReply))) }
        steps.append(.stop)
        steps += expect.restoreSteps
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90, 180, 270, 0], "\(r.transcript)")

        var using = "rotationd: info: using \(expect.display) "
        let used = r.stderr.first { $0.hasPrefix(using) } ?? ""
        using = ") as the display accelerometer, \(expect.capture)"
        #expect(used.contains(using), "\(r.transcript)")
        if let base = expect.base { #expect(used.contains("base accelerometer \(base) read for the posture"), "\(used)") }
        let fused = expect.gyroscope.map { used.contains("gyroscope \($0) (") && expect.warnings.isEmpty } ?? false
        let inputs = r.events.last?["inputs"] as? String
        #expect(inputs == (fused ? "accel+gyro" : "accel"), "\(r.transcript)")
        // No state's only change is an inputs value that reverts within 100 ms (the engine's inputsHold rule).
        let flaps = Self.inputsFlaps(r.events)
        #expect(flaps.isEmpty, "states whose only change is an inputs value that reverts within 100 ms, at \(flaps): \(r.transcript)")
        // Once fused, it stays fused while the device is held: a separate gyroscope read at the still pace must
        // not switch the inputs (and wake every subscriber) at each batch or change of pace. Only during a turn
        // that starts at the still pace (from its start until its rotation is published) may a sample go out
        // before the gyroscope's reading that covers it, and be decided from the accelerometer alone; the
        // inputs come back once the gyroscope is read at the full rate. One found wrong is dropped once, for
        // good.
        let changes = zip(r.events, r.events.dropFirst()).filter { ($0["inputs"] as? String) != ($1["inputs"] as? String) }
        if fused {
            let start = r.traceStart(before: Self.turns[0]) ?? 0
            let turning = zip(Self.turns, [90, 180, 270, 0]).map { turn, rotation in
                let published = r.events.first { ($0["t"] as? Double ?? 0) > start + turn && $0["rotation"] as? Int == rotation }
                return (start + turn - 0.1)...(published?["t"] as? Double ?? .infinity)
            }
            let held = changes.filter { $0.1["inputs"] as? String == "accel" }.compactMap { $0.1["t"] as? Double }
                .filter { t in !turning.contains { $0.contains(t) } }.map { $0 - start }
            #expect(held.isEmpty, "inputs fell back to accel \(held) s into the trace, while held: \(r.transcript)")
        } else {
            #expect(changes.count <= (used.contains(", gyroscope ") ? 2 : 0), "\(r.transcript)")
        }

        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
        let warnings = r.stderr.filter { $0.hasPrefix("rotationd: warning") || $0.hasPrefix("rotationd: error") }
        #expect(warnings.count == expect.warnings.count, "\(warnings)")
        for w in expect.warnings { #expect(warnings.contains { $0.contains(w) }, "\(warnings)") }
    }

    @Test("each driver: --list gives every scale with the file it came from, wherever the driver put it, the sensor reads 1 g at rest, and only a HID hub names the hysteresis it is given while still", arguments: drivers)
    func listing(driver: String) async throws {
        let expect = try Sidecar.zoo(driver).expectation()
        // The upright pose of the four-poses trace alone, played in a loop: however late --list starts reading,
        // the sensor is still.
        let poses = try String(contentsOf: Testbed.fixtures.appendingPathComponent("zoo/four-poses.csv"), encoding: .utf8)
        let upright = poses.split(separator: "\n").enumerated().filter { i, line in
            i == 0 || (Double(line.prefix { $0 != "," }) ?? .infinity) < 2.9
        }.map { String($0.1) }
        let still = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-upright-\(UUID().uuidString).csv")
        try (upright.joined(separator: "\n") + "\n").write(to: still, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: still) }
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"],
                                    steps: [.play(still.path, seconds: 25), .start, .exit(within: Tolerance.exit)],
                                    arguments: ["--list"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        for (device, scale) in expect.scales {
            guard let heading = r.stdout.firstIndex(where: { $0.hasPrefix("\(device): ") }) else {
                Issue.record("--list does not show \(device): \(r.transcript)")
                continue
            }
            let block = r.stdout[(heading + 1)...].prefix { $0.hasPrefix("  ") }
            #expect(block.contains { $0.hasPrefix("  scale: x \(scale.value) (\(scale.file))") }, "\(r.transcript)")
        }
        // Each sensor's mode: a gyroscope on a device of its own keeps its buffer beside the polled accelerometer;
        // one sharing the accelerometer's device is polled with it.
        for (sensor, mode) in expect.modes {
            let parts = sensor.split(separator: " ")
            let heading = r.stdout.firstIndex { $0.hasPrefix("\(parts[0]): ") && $0.contains("(\(parts[1])") }
            let block = heading.map { r.stdout[($0 + 1)...].prefix { $0.hasPrefix("  ") } } ?? []
            #expect(block.contains { $0.hasPrefix("  mode: \(mode)") }, "\(sensor) should be \(mode): \(r.transcript)")
        }
        #expect(r.stdout.contains { $0.hasPrefix("  at rest: \(expect.display): 1 g reads") && $0.hasSuffix("the scale is right") },
                "\(r.transcript)")
        // Only a HID hub offers a hysteresis (`HysteresisStill`): 0.05 g, in g as its scale says.
        let hysteresis = r.stdout.filter { $0.hasPrefix("  hysteresis: in_accel_hysteresis set to 0.050000 (0.05 g)") }
        #expect(hysteresis.count == (driver.hasPrefix("hid-sensor") ? 1 : 0), "\(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }

    /// The times of the published states that differ from the one before only in `inputs`, and whose value
    /// gives way to the one before again within 100 ms: states a client can do nothing with.
    static func inputsFlaps(_ events: [[String: Any]]) -> [Double] {
        func inputs(_ e: [String: Any]) -> String? { e["inputs"] as? String }
        func rest(_ e: [String: Any]) -> Data? {
            try? JSONSerialization.data(withJSONObject: e.filter { !["seq", "t", "inputs"].contains($0.key) }, options: .sortedKeys)
        }
        var flaps: [Double] = []
        for i in events.indices.dropFirst() where inputs(events[i]) != inputs(events[i - 1]) && rest(events[i]) == rest(events[i - 1]) {
            let t = events[i]["t"] as? Double ?? 0
            guard let next = events[(i + 1)...].first(where: { inputs($0) != inputs(events[i]) }) else { continue }
            if inputs(next) == inputs(events[i - 1]), (next["t"] as? Double ?? .infinity) - t <= 0.1 { flaps.append(t) }
        }
        return flaps
    }
}
