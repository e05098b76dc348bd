import Foundation
import RotationEngine
import RotationSensors
import Testing
import TestSupport

/// A HID sensor hub while the device is still: one that honours `in_accel_hysteresis` reports nothing until the
/// device moves (`HysteresisStill`); one that ignores it is found out and read at the still pace as before.
extension DriverZooTests {
    /// What the service says once it has set the hysteresis for a still spell.
    static let hysteresisSet = "the device is still: the hub reports only a change"

    /// The writes of `value` to the display accelerometer's hysteresis in the kernel's log of `r`.
    static func hysteresisWrites(_ r: Testbed.Result, _ value: String) -> Int {
        r.kernelWrites.filter { $0.device == "iio:device0" && $0.file == "in_accel_hysteresis" && $0.value == value }.count
    }

    @Test("a hinge sensor beside a HID hub that honours in_accel_hysteresis is read once a second while the display is still: a fold to tablet with the display unmoved is published, and the sensor thread wakes only for those reads (twice each: its timer, and the hub's answer to the raw read; at most 8 times in 3 s)")
    func hingeReadWhileHubIsStill() async throws {
        let trace = try PosesTrace(holds: [40])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let steps: [Step] = [.set("iio:device2", ["in_angl0_raw": 1100]), .start, .play(file.path, seconds: trace.length - 0.2),
                             .wait(.stdout(#""posture":"laptop""#, within: Tolerance.tracePose)),
                             .waitFile("sys/bus/iio/devices/iio:device0/in_accel_hysteresis", "0.050000", within: Tolerance.slowReply),
                             .asleep(thread: "rotationd-iio", seconds: 3, most: 8),
                             .set("iio:device2", ["in_angl0_raw": 3500]),
                             .wait(.stdout(#""posture":"tablet""#, within: Tolerance.tracePose))]
        let r = try await Testbed.run(devices: ["zoo/hid-sensor-hysteresis.umockdev", "hinge-hid-beside-hub.umockdev"], steps: steps,
                                      arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == ["laptop", "tablet"], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("iio:device0: the fold moved while the display was still") }, "\(r.transcript)")
        let wokeUps = r.results.wakeUps.first?.count ?? -1
        #expect(wokeUps >= 2 && wokeUps <= 8, "woke \(wokeUps) times in 3 s: \(r.transcript)")
    }

    @Test("a HID sensor hub that honours in_accel_hysteresis: while the device is still the hysteresis is set (0.05 g) and the sensor thread sleeps (no wake-up in 3 s); the turn after 12 s still is published within 0.5 s of its end; no write is refused and every setting is put back, the hysteresis among them")
    func motionWatchedByHysteresis() async throws {
        let driver = "hid-sensor-hysteresis"
        let trace = try PosesTrace(holds: [12, 6])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                              .waitFile("sys/bus/iio/devices/iio:device0/in_accel_hysteresis", "0.050000", within: Tolerance.slowReply),
                              // The first still spell's line, so that the wait after the turn finds the next one.
                              .wait(.stderr(Self.hysteresisSet)),
                              .asleep(thread: "rotationd-iio", seconds: 3), .wait(.stdout("\"rotation\":90,", within: Tolerance.tracePose)),
                              // The still spell after the turn: the hysteresis set again.
                              .wait(.stderr(Self.hysteresisSet, within: Tolerance.tracePose)), .stop]
            + (try Sidecar.zoo(driver).expectation().restoreSteps)
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnWithHysteresis } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.stderr.contains { $0.contains("the hub reported a change") }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("ignores the hysteresis") }, "\(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
        // Set for each still spell (two) and put back after each.
        #expect(Self.hysteresisWrites(r, "0.050000") == 2 && Self.hysteresisWrites(r, "0.000000") >= 2, "\(r.kernelWrites)")
    }

    @Test("a HID sensor hub that honours in_accel_hysteresis, beside the tablet-mode and lid switches: a switch changed while still is read at once, with a sample whose raw reads the hub answers through its buffer too; those answers are not taken for the hub reporting the still device, so the hysteresis stays set and the sensor thread sleeps again (no wake-up in 3 s); the turn after 12 s still comes within 0.5 s of its end")
    func switchReadsWhileHubIsStill() async throws {
        let trace = try PosesTrace(holds: [12, 4])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let hysteresis = "sys/bus/iio/devices/iio:device0/in_accel_hysteresis"
        let steps: [Step] = SwitchTests.emulated + [
            .start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
            .waitFile(hysteresis, "0.050000", within: Tolerance.slowReply),
            .flip(SwitchTests.tablet, .tabletMode, true), .wait(.stdout(#""posture":"tablet""#)),
            .flip(SwitchTests.tablet, .tabletMode, false), .wait(.stdout(#""posture":"laptop""#)),
            .asleep(thread: "rotationd-iio", seconds: 3), .expectFile(hysteresis, "0.050000"),
            .wait(.stdout("\"rotation\":90,", within: Tolerance.longTracePose)),
        ]
        let r = try await Testbed.run(devices: ["zoo/hid-sensor-hysteresis.umockdev", "switches.umockdev"], steps: steps,
                                      arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("ignores the hysteresis") }, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnWithHysteresis } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }

    @Test("a HID sensor hub that ignores in_accel_hysteresis keeps reporting the still device: found at the first still spell, said once, the hysteresis put back at once and never set again, and the sensor read at the still pace as before; the turn after the still spell comes within 0.5 s of its end")
    func motionHysteresisIgnored() async throws {
        let driver = "hid-sensor"
        let trace = try PosesTrace(holds: [6, 6])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                              .wait(.stderr("ignores the hysteresis", within: Tolerance.slowReply)),
                              .waitFile("sys/bus/iio/devices/iio:device0/in_accel_hysteresis", "0.000000"),
                              .wait(.stderr("the device is still: reading it at")),
                              .wait(.stdout("\"rotation\":90,", within: Tolerance.tracePose)),
                              // The still spell after the turn, where a hub found ignoring its hysteresis would be
                              // given it again (the write comes before the line).
                              .wait(.stderr("the device is still", within: Tolerance.tracePose)), .stop]
            + (try Sidecar.zoo(driver).expectation().restoreSteps)
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let said = r.stderr.filter { $0.contains("ignores the hysteresis") }
        #expect(said.count == 1 && said[0].hasPrefix("rotationd: info: iio:device0 (accel_3d)"), "\(r.transcript)")
        #expect(Self.hysteresisWrites(r, "0.050000") == 1, "set again after it was found ignored: \(r.kernelWrites)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnWithHysteresis } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }
}
