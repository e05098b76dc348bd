import Foundation
import Testing
import TestSupport

/// Calibration: per-channel scale and offset, and the mount matrix from the attribute or from udev, repaired or
/// refused.
extension LiveSensorTests {
    @Test("per-channel scale and offset win over the shared ones, and the offset is added before scaling")
    func perChannelScaleAndOffset() async throws {
        let r = try await Self.printed("scale-offset.umockdev", turnedTo: ["in_accel_x_raw": 2980, "in_accel_y_raw": 100, "in_accel_z_raw": 100], until: Self.leftUp)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let list = try await Self.listed("scale-offset.umockdev")
        #expect(list.stdout.contains("  scale: x 0.01 (in_accel_x_scale), y 0.02 (in_accel_y_scale), z 0.01 (in_accel_z_scale)"),
                "\(list.transcript)")
        #expect(list.stdout.contains("  offset: x -2000.0 (in_accel_x_offset), y -100.0 (in_accel_offset), z -100.0 (in_accel_offset)"),
                "\(list.transcript)")
    }

    @Test("a mount_matrix attribute is applied; a udev matrix with a zero row is rejected with a warning and skipped")
    func mountMatrixAttribute() async throws {
        let r = try await Self.printed("mount-matrix.umockdev", turnedTo: Self.onda, until: Self.rightUp)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: warning: iio:device0: ignoring the mount matrix from udev ACCEL_MOUNT_MATRIX (\"0, 0, 0; 0, 1, 0; 0, 0, 1\")") },
                "\(r.transcript)")
    }

    @Test("the udev ACCEL_MOUNT_MATRIX property wins over the in_accel_mount_matrix attribute")
    func udevMatrixWins() async throws {
        let r = try await Self.printed("udev-matrix.umockdev", turnedTo: Self.onda, until: Self.rightUp)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // With the attribute's identity matrix instead, the same readings would give 90 and then 180.
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        let list = try await Self.listed("udev-matrix.umockdev")
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)"), "\(list.transcript)")
    }

    @Test("a shipped hwdb matrix whose third row repeats the first (Bush Windows tablet) is used with row 1 × row 2 as its third row, with a warning naming the source")
    func udevMatrixWithRepeatedRowIsRepaired() async throws {
        // Upright the sensor reads (0, +g, 0) and left edge up (+g, 0, 0): through the hwdb rows 1 and 2 that is
        // normal and then left-up. Dropping the matrix for the attribute's identity would give bottom-up first.
        let r = try await Self.printed("udev-matrix-repeated-row.umockdev", turnedTo: ["in_accel_x_raw": 512, "in_accel_y_raw": 0, "in_accel_z_raw": 0], until: Self.leftUp)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        // Upright and left edge up are both vertical: the repeated row would have tilted left-up by 45°.
        #expect(r.events.filter { $0["rotation"] is Int }.allSatisfy { $0["tilt"] as? String == "vertical" }, "\(r.transcript)")
        let warning = "rotationd: warning: iio:device0: the mount matrix from udev ACCEL_MOUNT_MATRIX (\"1, 0, 0; 0, -1, 0; 1, 0, 0\") has a third row that is zero or in the plane of the first two; using \"1, 0, 0; 0, -1, 0; 0, 0, -1\""
        #expect(r.stderr.filter { $0.hasPrefix(warning) }.count == 1, "\(r.transcript)")
        let list = try await Self.listed("udev-matrix-repeated-row.umockdev")
        #expect(list.stdout.contains("  mount matrix: 1, 0, 0; 0, -1, 0; 0, 0, -1 (from udev ACCEL_MOUNT_MATRIX, third row replaced by the cross product of the first two)"),
                "\(list.transcript)")
    }

    @Test("a udev ANGLVEL_MOUNT_MATRIX wins for a gyroscope on the accelerometer's chip")
    func udevGyroscopeMatrixWins() async throws {
        let list = try await Self.listed("imu-anglvel-udev.umockdev")
        #expect(list.stdout.contains("  mount matrix: 1, 0, 0; 0, -1, 0; 0, 0, -1 (from udev ANGLVEL_MOUNT_MATRIX)"), "\(list.transcript)")
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)"), "\(list.transcript)")
    }

    /// `rotationd --print` on `fixture`: published upright, then the raw values `raw` set until `line` is printed.
    static func printed(_ fixture: String, turnedTo raw: [String: DriverJSON], until line: String) async throws -> Testbed.Result {
        try await Testbed.run(devices: [fixture], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", raw),
            .wait(.stdout(line)),
        ], arguments: ["--print"])
    }

    /// `rotationd --list` on `fixture`, until it has said what the sensor reads at rest.
    static func listed(_ fixture: String) async throws -> Testbed.Result {
        try await Testbed.run(devices: [fixture], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))],
                              arguments: ["--list"])
    }
}
