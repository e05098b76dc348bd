import Foundation
import Testing
import TestSupport

/// Hot-plug and faults: garbage raw values, a sensor removed and added again, no sensor at all, and the reader
/// of --print gone.
extension LiveSensorTests {
    @Test("each kind of garbage raw value is skipped and logged at most once a second; a zero scale is refused by name")
    func garbageValues() async throws {
        // The fixture starts with x "abc", y empty and z overflowing; a sample is skipped at its first bad axis,
        // so the axes are repaired one at a time, each once its kind of garbage has been logged. The log allows
        // one line a second, so each kind stays for a second (the one before it was logged just before).
        let started = Date()
        let r = try await Testbed.run(devices: ["garbage.umockdev"], steps: [
            .start,
            .wait(.stderr("in_accel_x_raw holds \"abc\"")),
            .alive,
            .set("iio:device0", ["in_accel_x_raw": 0]),
            .wait(.stderr("in_accel_y_raw holds an empty value")),
            .alive,
            .set("iio:device0", ["in_accel_y_raw": -512]),
            .wait(.stderr("in_accel_z_raw holds \"99999999999999999999\"")),
            .alive,
            .set("iio:device0", ["in_accel_z_raw": 0]),
            .wait(.stdout(Self.normal)),
        ], arguments: ["--print"])
        let seconds = Date().timeIntervalSince(started)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
        // Nothing but the final, valid reading may produce a rotation.
        let firstRotation = r.stdout.firstIndex { $0.contains(Self.normal) }
        #expect(firstRotation == r.stdout.count - 1, "\(r.transcript)")
        let skipped = r.stderr.filter { $0.contains("sample skipped") }
        let prefix = "rotationd: warning: /sys/bus/iio/devices/iio:device0/"
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_x_raw holds \"abc\", expected a number") }, "\(r.transcript)")
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_y_raw holds an empty value, expected a number") }, "\(r.transcript)")
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_z_raw holds \"99999999999999999999\", expected a number") },
                "\(r.transcript)")
        // At 50 Hz the bad samples number about fifty a second; at most one line a second is logged, over no
        // longer than the whole run took (measured here, so a slow machine only widens the bound).
        #expect(skipped.count <= Int(seconds) + 1, "\(skipped.count) lines about skipped samples in a run of \(seconds) s:\n\(r.transcript)")
        #expect(skipped.allSatisfy { $0.hasPrefix(prefix + "in_accel_") }, "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: error: iio:device1: cannot use this accelerometer: /sys/bus/iio/devices/iio:device1/in_accel_scale holds \"0\"") },
                "\(r.transcript)")
    }

    @Test("a device removed while running publishes sensor lost, and the rotation resumes when it is added again")
    func removedAndAddedAgain() async throws {
        let path = "/sys/devices/platform/accel-polled/iio:device0"
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .uevent(path, .remove),
            .remove(path),
            .wait(.stdout("\"sensor\":\"lost\"")),
            // A time, not a wait: a rescan a second finds nothing, and the service goes on meanwhile.
            .sleep(1.2),
            .alive,
            // The same device again, now held right edge up (umockdev cannot recreate the device node).
            .add("polled-replugged.umockdev"),
            .wait(.stdout("\"sensor\":\"ok\"")),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("sensor iio:device0 went away") }, "\(r.transcript)")
    }

    @Test("with no sensor at all one line says what was looked for, and a sensor that appears later is used")
    func noSensorThenHotPlug() async throws {
        let r = try await Testbed.run(devices: [], steps: [
            .start,
            .wait(.stdout("\"sensor\":\"none\"")),
            // A time, not a wait: two rescans or more find nothing, and say nothing again.
            .sleep(2.5),
            .alive,
            .add("polled.umockdev"),
            .wait(.stdout(Self.normal)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let notFound = r.stderr.filter { $0.contains("no accelerometer found") }
        #expect(notFound == ["rotationd: warning: no accelerometer found: looked for an IIO device with input channels accel_x, accel_y and accel_z in /sys/bus/iio/devices; waiting for one to appear"],
                "\(r.transcript)")
    }

    @Test("--print stops, exiting 1, when the reader of its output goes away")
    func printStopsWhenReaderLeaves() throws {
        let device = Testbed.fixtures.appendingPathComponent("polled.umockdev").path
        let rotationd = Testbed.binDir + "/rotationd"
        let status = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-print-\(UUID().uuidString).status")
        defer { try? FileManager.default.removeItem(at: status) }
        // rotationd's own exit status, kept beside the pipeline: a rotationd that kept sampling after head
        // exited would only be ended by the timeout (which bounds the run), whose status is 124.
        _ = try ChildProcess.run("/bin/sh", ["-c", "{ timeout 60 umockdev-run -d '\(device)' -- '\(rotationd)' --print 2>/dev/null; echo $? > '\(status.path)'; } | head -n 1 >/dev/null"],
                                 timeout: nil)
        let exit = try String(contentsOf: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(exit == "1", "rotationd --print outlived its reader or failed otherwise: exit status \(exit)")
    }
}
