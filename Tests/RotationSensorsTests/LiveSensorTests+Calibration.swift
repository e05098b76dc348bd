import Foundation
import Testing
import TestSupport

/// Calibration: per-channel scale and offset, and the mount matrix from the attribute or from udev, repaired or
/// refused.
extension LiveSensorTests {
    @Test("per-channel scale and offset win over the shared ones, and the offset is added before scaling")
    func perChannelScaleAndOffset() async throws {
        let r = try await Testbed.run(devices: ["scale-offset.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", ["in_accel_x_raw": 2980, "in_accel_y_raw": 100, "in_accel_z_raw": 100]),
            .wait(.stdout(Self.leftUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let list = try await Testbed.run(devices: ["scale-offset.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  scale: x 0.01 (in_accel_x_scale), y 0.02 (in_accel_y_scale), z 0.01 (in_accel_z_scale)"),
                "\(list.transcript)")
        #expect(list.stdout.contains("  offset: x -2000.0 (in_accel_x_offset), y -100.0 (in_accel_offset), z -100.0 (in_accel_offset)"),
                "\(list.transcript)")
    }

    @Test("a mount_matrix attribute is applied; a udev matrix with a zero row is rejected with a warning and skipped")
    func mountMatrixAttribute() async throws {
        let r = try await Testbed.run(devices: ["mount-matrix.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: warning: iio:device0: ignoring the mount matrix from udev ACCEL_MOUNT_MATRIX (\"0, 0, 0; 0, 1, 0; 0, 0, 1\")") },
                "\(r.transcript)")
    }

    @Test("the udev ACCEL_MOUNT_MATRIX property wins over the in_accel_mount_matrix attribute")
    func udevMatrixWins() async throws {
        let r = try await Testbed.run(devices: ["udev-matrix.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // With the attribute's identity matrix instead, the same readings would give 90 and then 180.
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        let list = try await Testbed.run(devices: ["udev-matrix.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)"), "\(list.transcript)")
    }

    @Test("a shipped hwdb matrix whose third row repeats the first (Bush Windows tablet) is used with row 1 × row 2 as its third row, with a warning naming the source")
    func udevMatrixWithRepeatedRowIsRepaired() async throws {
        // Upright the sensor reads (0, +g, 0) and left edge up (+g, 0, 0): through the hwdb rows 1 and 2 that is
        // normal and then left-up. Dropping the matrix for the attribute's identity would give bottom-up first.
        let r = try await Testbed.run(devices: ["udev-matrix-repeated-row.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", ["in_accel_x_raw": 512, "in_accel_y_raw": 0, "in_accel_z_raw": 0]),
            .wait(.stdout(Self.leftUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        // Upright and left edge up are both vertical: the repeated row would have tilted left-up by 45°.
        #expect(r.events.filter { $0["rotation"] is Int }.allSatisfy { $0["tilt"] as? String == "vertical" }, "\(r.transcript)")
        let warning = "rotationd: warning: iio:device0: the mount matrix from udev ACCEL_MOUNT_MATRIX (\"1, 0, 0; 0, -1, 0; 1, 0, 0\") has a third row that is zero or in the plane of the first two; using \"1, 0, 0; 0, -1, 0; 0, 0, -1\""
        #expect(r.stderr.filter { $0.hasPrefix(warning) }.count == 1, "\(r.transcript)")
        let list = try await Testbed.run(devices: ["udev-matrix-repeated-row.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  mount matrix: 1, 0, 0; 0, -1, 0; 0, 0, -1 (from udev ACCEL_MOUNT_MATRIX, third row replaced by the cross product of the first two)"),
                "\(list.transcript)")
    }

    @Test("a udev ANGLVEL_MOUNT_MATRIX wins for a gyroscope on the accelerometer's chip")
    func udevGyroscopeMatrixWins() async throws {
        let list = try await Testbed.run(devices: ["imu-anglvel-udev.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  mount matrix: 1, 0, 0; 0, -1, 0; 0, 0, -1 (from udev ANGLVEL_MOUNT_MATRIX)"), "\(list.transcript)")
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)"), "\(list.transcript)")
    }
}
