import Foundation
import Testing
import TestSupport

/// Discovery: the display accelerometer beside a base one, and a gyroscope on the accelerometer's chip, read
/// through its matrix, polled or from the same scans.
extension LiveSensorTests {
    @Test("with a base and a display accelerometer only the display one drives the rotation")
    func baseAndDisplayPair() async throws {
        let r = try await Testbed.run(devices: ["base-display.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", ["in_accel_x_raw": 0, "in_accel_y_raw": 512, "in_accel_z_raw": 0]),
            // The base's new reading is taken (for the posture), and has not turned the rotation.
            .wait(.stdout(#""hinge":180,"#)),
            .set("iio:device1", ["in_accel_x_raw": -512, "in_accel_y_raw": 0, "in_accel_z_raw": 0]),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("using iio:device1 (cros-ec-accel) as the display accelerometer") &&
            $0.contains("base accelerometer iio:device0 read for the posture") }, "\(r.transcript)")
        let list = try await Testbed.run(devices: ["base-display.umockdev"], steps: [.start, .wait(.stdout("^posture: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  location: base (from udev ACCEL_LOCATION=base)"), "\(list.transcript)")
        #expect(list.stdout.contains("  location: display (from label accel-display)"), "\(list.transcript)")
        #expect(list.stdout.contains("  role: base accelerometer, read for the posture"), "\(list.transcript)")
        #expect(list.stdout.contains { $0.hasPrefix("posture: from the display and base accelerometers together (iio:device1 and iio:device0), used") },
                "\(list.transcript)")
    }

    @Test("an accelerometer with a gyroscope on the same device: both are read, the gyroscope through the accelerometer's mount matrix")
    func accelerometerAndGyroscope() async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-gyro-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let r = try await Testbed.run(devices: ["accel-gyro.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", ["in_anglvel_x_raw": 100, "in_anglvel_y_raw": 200, "in_anglvel_z_raw": 300]),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
            // A time, not a wait: the recording goes on a little past the turn, so its last rows are right-up.
            .sleep(0.2),
        ], arguments: ["--print", "--record", csv.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        // The engine fuses the two. The raw values jump from upright to right-up at once, a turn no gyroscope
        // reading a steady rate can have followed: that decision is the accelerometer's. The gyroscope is named
        // in a warning, with its scale file, unless a read fell between the renames of the new values: such a
        // reading is off the pose magnitude, like a shake, and the turn test starts again after it.
        let decided = r.events.filter { $0["rotation"] is Int }
        #expect(decided.first?["inputs"] as? String == "accel+gyro", "\(r.transcript)")
        for warning in r.stderr where warning.hasPrefix("rotationd: warning: iio:device0 (bmi160): the gyroscope") {
            #expect(warning.contains("turned gravity") && warning.contains("in_anglvel_scale"), "\(r.transcript)")
        }
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "t,x,y,z,gx,gy,gz")
        // Raw (100, 200, 300) × 0.001 rad/s through "0, -1, 0; -1, 0, 0; 0, 0, 1" is (−0.2, −0.1, 0.3).
        let last = try #require(lines.last).split(separator: ",").compactMap { Double($0) }
        #expect(last.count == 7)
        #expect(abs(last[4] - -0.2) < 1e-6 && abs(last[5] - -0.1) < 1e-6 && abs(last[6] - 0.3) < 1e-6, "\(lines.last!)")
        // And the acceleration columns are the calibrated right-up reading, about (−g, 0, 0).
        #expect(abs(last[1] - -521 * 0.019163) < 1e-4 && abs(last[2] - -8 * 0.019163) < 1e-4, "\(lines.last!)")
        let times = lines.dropFirst().compactMap { Double($0.split(separator: ",")[0]) }
        #expect(times == times.sorted() && times.count > 10)
    }

    @Test("a buffered IMU (bmi160, whose driver answers raw reads while buffered): accelerometer and gyroscope come from the same scans; the gyroscope follows the hwdb matrix that corrects its chip, not its own attribute")
    func bufferedAccelerometerAndGyroscope() async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-imu-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["imu-buffered.umockdev"], steps: [
            .feed(node, format: "<hhhhhhxxxxq", values: [523, 13, 5, 100, 200, 300], hz: 50),
            .start,
            .wait(.stdout(Self.normal)),
            .feed(node, format: "<hhhhhhxxxxq", values: [8, 521, -67, -40, 50, 60], hz: 50),
            .wait(.stdout(Self.rightUp)),
            // A time, not a wait: the recording goes on a little past the turn, so its last rows are right-up.
            .sleep(0.2),
        ], arguments: ["--print", "--record", csv.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer, buffered, gyroscope iio:device0 (bmi160)") }, "\(r.transcript)")
        let rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").compactMap { Double($0) } }
        // Gyroscope raw (100, 200, 300) and then (−40, 50, 60), × 0.001, through the udev ACCEL_MOUNT_MATRIX
        // "0, -1, 0; -1, 0, 0; 0, 0, 1" (its in_anglvel_mount_matrix "1, 0, 0; 0, 1, 0; 0, 0, -1" would give
        // (0.1, 0.2, −0.3) instead).
        let first = try #require(rows.first), last = try #require(rows.last)
        #expect(abs(first[4] - -0.2) < 1e-6 && abs(first[5] - -0.1) < 1e-6 && abs(first[6] - 0.3) < 1e-6, "\(first)")
        #expect(abs(last[4] - -0.05) < 1e-6 && abs(last[5] - 0.04) < 1e-6 && abs(last[6] - 0.06) < 1e-6, "\(last)")
        // The accelerometer went through the udev matrix: right edge up reads about (−g, 0, 0).
        #expect(abs(last[1] - -521 * 0.019163) < 1e-4, "\(last)")
        let list = try await Self.listed("imu-buffered.umockdev")
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from the accelerometer's, udev ACCEL_MOUNT_MATRIX)"),
                "\(list.transcript)")
    }
}
