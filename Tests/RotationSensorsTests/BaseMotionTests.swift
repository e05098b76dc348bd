import Foundation
import Testing
@testable import RotationSensors
import TestSupport

/// A convertible's base watched by its own motion event while the display sleeps on its own (`BaseMotion`): the
/// real `rotationd` against the driver zoo's DUAL250E layout, two bmc150 parts each with its interrupt, playing a
/// fold of the base alone.
@Suite("A base watched by its own motion event", .serialized)
struct BaseMotionTests {
    /// The display upright, (0, −g, 0), throughout; the base lying flat (a hinge of 90°) for `still` seconds, then
    /// opened in 0.6 s to 240°, a stand, and held there for `after` seconds. Base readings in the trace's base
    /// frame (opened flat it reads as the display).
    static func fold(still: Double, after: Double) throws -> (file: URL, length: Double) {
        let g = 9.80665
        var rows = ["t,x,y,z,bx,by,bz"]
        var t = 0.0
        func row(_ hinge: Double) {
            let phi = -(180 - hinge) * Double.pi / 180
            rows.append(String(format: "%.3f,0,%.4f,0,0,%.4f,%.4f", t, -g, -g * cos(phi), -g * sin(phi)))
            t += 0.02
        }
        for _ in 0..<Int(still * 50) { row(90) }
        for i in 0..<30 { row(90 + 150 * Double(i) / 29) }
        for _ in 0..<Int(after * 50) { row(240) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-base-fold-\(UUID().uuidString).csv")
        try (rows.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return (file, t)
    }

    static let laptop = #""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#
    static let armed = "iio:device1: the base is still too: watching for motion with its bmc150-accel event"

    @Test("a base whose driver registered its trigger (DUAL250E) is armed beside the display while both are still: the sensor thread does not wake for 3 s, the base's report of motion alone brings the fold from laptop to stand, and its event files and sampling frequency are put back")
    func foldFollowedByTheBasesEvent() async throws {
        let (file, length) = try Self.fold(still: 16, after: 8)
        defer { try? FileManager.default.removeItem(at: file) }
        let base = "sys/bus/iio/devices/iio:device1/"
        let r = try await Testbed.run(devices: ["zoo/dual250e.umockdev"], steps: [
            .start,
            // At its first pose until rotationd says laptop, however late a loaded machine starts it.
            .play(file.path, seconds: length - 0.2, holdUntil: .stdout(Self.laptop, within: Tolerance.slowReply)),
            .wait(.stdout(Self.laptop, within: Tolerance.tracePose)),
            .wait(.stderr(Self.armed, within: Tolerance.tracePose)),
            // Without the base's event it is read once a second: 3 wake-ups here.
            .asleep(thread: "rotationd-iio", seconds: 3),
            .wait(.stdout(#""posture":"stand","#, within: Tolerance.tracePose)),
            .stop,
            .expectFile(base + "in_accel_sampling_frequency", "125.000000"),
            .expectFile(base + "events/in_accel_x_roc_either_en", "0"),
            .expectFile(base + "events/in_accel_x_roc_either_value", "1"),
        ], arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == ["laptop", "stand"], "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
        // The stand came from the base's event, not from a safety read ten seconds on: the display never moved.
        #expect(!r.stderr.contains { $0.contains("did not report it") }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
    }

    @Test("a base whose motion event never arrives, though its driver registered a trigger, is caught by the safety read: the stand comes within the safety interval, said once, and the base is read every second while still from then on")
    func lostBaseEventCaughtBySafetyRead() async throws {
        let (file, length) = try Self.fold(still: 16, after: 16)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try await Testbed.run(devices: ["zoo/dual250e-silent.umockdev"], steps: [
            .start,
            // At its first pose until rotationd says laptop, however late a loaded machine starts it.
            .play(file.path, seconds: length - 0.2, holdUntil: .stdout(Self.laptop, within: Tolerance.slowReply)),
            .wait(.stdout(Self.laptop, within: Tolerance.tracePose)),
            .wait(.stderr(Self.armed, within: Tolerance.tracePose)),
            .wait(.stderr("iio:device1 \\(bmc150_accel\\): the base moved and its motion event did not report it", within: Tolerance.longTracePose)),
            .wait(.stdout(#""posture":"stand","#)),
            // Still again: the display armed, the base read at the fold's pace.
            .wait(.stderr("iio:device0: the device is still: watching for motion", within: Tolerance.tracePose)),
            .stop,
        ], arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == ["laptop", "stand"], "\(r.transcript)")
        #expect(r.stderr.filter { $0.contains(Self.armed) }.count == 1, "\(r.transcript)")
        #expect(r.stderr.filter { $0.contains("did not report it") }.count == 1, "\(r.transcript)")
    }
}
