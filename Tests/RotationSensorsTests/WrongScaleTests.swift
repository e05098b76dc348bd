import Foundation
import Testing
import TestSupport

/// Sensors whose scale attribute is missing or wrong, under umockdev: the rotation must follow them as it follows
/// a correct sensor, and rotationd must say which attribute is wrong and by how much.
@Suite("Wrong scales under umockdev", .serialized)
struct WrongScaleTests {
    @Test("a sensor with no scale attribute (1 g reads 256 counts) turns the rotation, and the missing scale is reported once with its factor")
    func rawCountsTurnAndAreReported() async throws {
        let r = try await Testbed.run(devices: ["noscale.umockdev"], steps: [
            .start,
            .wait(.stdout(LiveSensorTests.normal)),
            .wait(.stderr("1 g reads 256")),
            .set("iio:device0", ["in_accel_x_raw": -255, "in_accel_y_raw": 4, "in_accel_z_raw": -10]),
            .wait(.stdout(LiveSensorTests.rightUp)),
            .set("iio:device0", ["in_accel_x_raw": 4, "in_accel_y_raw": 257, "in_accel_z_raw": 12]),
            .wait(.stdout(LiveSensorTests.bottomUp)),
            .alive,
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270, 180], "\(r.transcript)")
        let reports = r.stderr.filter { $0.contains("1 g reads") }
        #expect(reports == ["rotationd: warning: iio:device0: 1 g reads 256.2 (26.12 × 9.807 m/s²): the driver has no in_accel_scale, so the readings are raw counts; rotations are still decided, but programs that trust the scale read 26.12 g at rest; the driver should report a scale of about 0.03828"]
                || (reports.count == 1 && reports[0].contains("the driver has no in_accel_scale") && reports[0].contains(" (26.1")),
                "\(r.transcript)")
        let list = try await LiveSensorTests.listed("noscale.umockdev")
        #expect(list.stdout.contains { $0.hasPrefix("  at rest: iio:device0: 1 g reads 256") && $0.contains("raw counts") }, "\(list.transcript)")
    }

    @Test("a scale ten times too small still turns the rotation; the attribute is named with its factor, in the log and in --list")
    func smallScaleNamed() async throws {
        let r = try await Testbed.run(devices: ["smallscale.umockdev"], steps: [
            .start,
            .wait(.stdout(LiveSensorTests.rightUp)),
            .wait(.stderr("in_accel_scale \\(0\\.000958\\) is probably wrong by a factor of 0\\.09")),
            .set("iio:device0", ["in_accel_x_raw": 1019, "in_accel_y_raw": -35, "in_accel_z_raw": 60]),
            .wait(.stdout(LiveSensorTests.leftUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [270, 90], "\(r.transcript)")
        #expect(r.stderr.filter { $0.contains("is probably wrong") }.count == 1, "\(r.transcript)")
        let list = try await LiveSensorTests.listed("smallscale.umockdev")
        #expect(list.stdout.contains { $0.hasPrefix("  at rest: iio:device0: 1 g reads 0.98") && $0.contains("in_accel_scale (0.000958) is probably wrong by a factor of 0.09") },
                "\(list.transcript)")
    }

    @Test("a correctly scaled sensor is not reported as wrong")
    func rightScaleNotReported() async throws {
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(LiveSensorTests.normal)),
            .wait(.stderr("1 g reads 10\\.0.*: the scale is right")),
            .alive,
        ], arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("probably wrong") || $0.contains("raw counts") }, "\(r.transcript)")
        let list = try await LiveSensorTests.listed("polled.umockdev")
        #expect(list.stdout.contains { $0.hasPrefix("  at rest: iio:device0: 1 g reads 10.0") && $0.hasSuffix("the scale is right") }, "\(list.transcript)")
    }
}
