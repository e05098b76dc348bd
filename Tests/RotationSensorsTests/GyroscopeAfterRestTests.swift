import Foundation
import Testing
import TestSupport

/// The turn that ends a still spell on a sensor whose separate gyroscope is read through its buffer (st_lsm6dsx):
/// the buffer is off while still, on again at the first sign of motion, and the turn is fused from its first
/// samples, as every other turn on that sensor is.
extension DriverZooTests {
    /// A copy of the zoo fixture `name` (its `.umockdev` file and sidecar) in a directory of its own, without the
    /// `events/` attributes: the sensor as a kernel without its motion events lays it out (st_lsm6dsx before 5.7).
    /// The caller removes the directory.
    static func withoutEvents(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-no-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let zoo = Testbed.fixtures.appendingPathComponent("zoo")
        let layout = try String(contentsOf: zoo.appendingPathComponent("\(name).umockdev"), encoding: .utf8)
        let kept = layout.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("A: events/") }
        try kept.joined(separator: "\n").write(to: dir.appendingPathComponent("\(name).umockdev"), atomically: false, encoding: .utf8)
        try FileManager.default.copyItem(at: zoo.appendingPathComponent("\(name).json"), to: dir.appendingPathComponent("\(name).json"))
        return dir
    }

    @Test("the first turn after a still spell on st_lsm6dsx, its gyroscope's buffer off while still, is fused as the sensor's other turns are: published with inputs accel+gyro, the gyroscope's buffer on again from the first sign of motion; with its motion event armed while still, before the move ends; without events (one axis glanced at once every read interval), within 2 s of its end",
          arguments: [true, false])
    func firstTurnAfterRestFused(events: Bool) async throws {
        let driver = "st_lsm6dsx"
        let dir = events ? nil : try Self.withoutEvents(driver)
        defer { dir.map { try? FileManager.default.removeItem(at: $0) } }
        let device = dir.map { $0.appendingPathComponent("\(driver).umockdev").path } ?? "zoo/\(driver).umockdev"
        let trace = try PosesTrace(holds: [8, 4])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let still: Step = events ? .wait(.stderr("the device is still: watching for motion", within: Tolerance.slowReply))
            : .wait(.stderr("the device is still: reading one axis", within: Tolerance.slowReply))
        let steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                             still, .expectFile("sys/bus/iio/devices/iio:device1/buffer/enable", "0"),
                             .wait(.stdout("\"rotation\":90,", within: Tolerance.tracePose)), .waitPlay(trace.turnEnds[0] + 1.5), .stop]
        let r = try await Testbed.run(devices: [device], steps: steps, arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.publication(rotation: 90, after: turnEnd - 1)
        let at = turn?["t"] as? Double
        #expect(turn?["inputs"] as? String == "accel+gyro", "the turn after the still spell: \(turn ?? [:]): \(r.transcript)")
        // With its event the sensor reports the turn as it starts, and the gyroscope reads it braking: published
        // before it ends. A glance once every read interval may find the turn only as it ends.
        let bound = events ? 0 : Tolerance.turnAwake
        #expect(at.map { $0 - turnEnd < bound } == true, "the turn came \(at.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        // The published inputs lag the ones in use by up to 100 ms (the engine's inputsHold rule): a turn decided
        // from the accelerometer alone shows as such in a state soon after. Fused from the first rotation to 1.5 s
        // after the turn's end, with the gyroscope's buffer enabled again after the still spell.
        let first = r.events.firstIndex { $0["rotation"] as? Int == 0 } ?? r.events.endIndex
        let unfused = r.events[first...].filter { $0["inputs"] as? String != "accel+gyro" }.compactMap { $0["t"] as? Double }
        #expect(unfused.isEmpty, "decided from the accelerometer alone at \(unfused.map { $0 - turnEnd }) s from the turn's end: \(r.transcript)")
        let enabled = r.kernelWrites.filter { $0.description == "iio:device1 buffer/enable \"1\" ok" }
        #expect(enabled.count >= 2, "the gyroscope's buffer enabled \(enabled.count) times: \(r.kernelWrites)")
        #expect(!r.stderr.contains { $0.hasPrefix("rotationd: warning") || $0.hasPrefix("rotationd: error") }, "\(r.transcript)")
    }
}
