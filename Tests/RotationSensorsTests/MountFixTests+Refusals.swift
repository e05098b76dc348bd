import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing
import TestSupport

extension MountFixTests {
    @Test("inconsistent poses are refused with status 1, saying what was wrong, and nothing is written", arguments: [
        ([Vector3(0, -1, 0), Vector3(1, 0, 0), Vector3(0, -1, 0)], "pose 3 read the same way up as pose 1"),
        ([Vector3(0, -1, 0), Vector3(0.7071, -0.7071, 0), Vector3(0, 0, 1)], "poses 1 and 2 are 45° apart, where they should be a quarter turn (90°) apart"),
    ])
    func inconsistentPoses(poses: [Vector3], refusal: String) async throws {
        let scratch = try Scratch()
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"],
                                      steps: [.set("iio:device0", Self.raw(poses[0], truth: .identity)), .start]
                                        + Self.hold("iio:device0", poses, truth: .identity) + [.exit(within: Tolerance.slowReply)],
                                      arguments: ["--fix-mount", "--yes"], environment: ["ROTATIOND_ROOT": scratch.path])
        #expect(r.failure == nil && r.results.exitStatus == 1, "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: iio:device0: \(refusal)") }, "\(r.transcript)")
        #expect(!FileManager.default.fileExists(atPath: scratch.hwdb))
    }

    @Test("a device that moves by 20° while its pose is measured is refused, with the angle")
    func movedWhileMeasured() async throws {
        // Upright for 0.7 s, then turned 20° for 0.3 s, over and over: each measurement (1 s) meets a turn.
        let scratch = try Scratch()
        let trace = scratch.path + "/wobble.csv"
        var rows = ["t,x,y,z"]
        for i in 0..<50 {
            let a = i < 35 ? 0 : 20 * Double.pi / 180
            rows.append(String(format: "%.2f,%.4f,%.4f,0", Double(i) * 0.02, Self.g * sin(a), -Self.g * cos(a)))
        }
        try (rows.joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"], steps: [
            .feedTrace("attr:iio:device0", trace: trace, scale: Self.scale, hz: 50, seconds: 30, burst: 1), .start,
            .wait(.stdout("pose 1: still, measuring", within: Tolerance.slowReply)), .exit(within: Tolerance.slowReply),
        ], arguments: ["--fix-mount", "--yes"], environment: ["ROTATIOND_ROOT": scratch.path])
        #expect(r.failure == nil && r.results.exitStatus == 1, "\(r.transcript)")
        let refusal = try #require(r.stderr.first { $0.hasPrefix("rotationd: iio:device0: the device moved by ") }, "\(r.transcript)")
        let degrees = try #require(Int(refusal.dropFirst("rotationd: iio:device0: the device moved by ".count).prefix { $0.isNumber }))
        #expect(degrees >= 18 && degrees <= 22, "\(refusal)")
        #expect(r.stdout.contains { $0.hasPrefix("  pose 1: moved by ") }, "\(r.transcript)")
    }

    @Test("a sensor whose buffer another program runs, on a driver that refuses raw reads meanwhile, is named busy with the fix, before any pose is asked for")
    func busySensor() async throws {
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"], steps: [
            .set("iio:device0", ["buffer/enable": 1]), .start, .exit(within: Tolerance.slowReply),
        ], arguments: ["--fix-mount"], rules: ["raw-busy iio:device0"])
        #expect(r.failure == nil && r.results.exitStatus == 1, "\(r.transcript)")
        #expect(r.stderr == ["rotationd: \(MountFixErrorText.busy)"], "\(r.transcript)")
        #expect(!r.stdout.contains { $0.contains("pose 1") }, "\(r.transcript)")
    }

    @Test("without root, the guide writes nothing: it says where the entry would go and the exact commands to run as root; with --yes that is a failure")
    func withoutRoot() async throws {
        let target = "/etc/udev/hwdb.d/61-sensor-local.hwdb"
        let before = FileManager.default.fileExists(atPath: target)
        let truth = SignedPermutation.all[5]
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"],
                                      steps: [.set("iio:device0", Self.raw(Self.display[0], truth: truth)), .start]
                                        + Self.hold("iio:device0", Self.display, truth: truth) + [.exit(within: Tolerance.slowReply)],
                                      arguments: ["--fix-mount", "--yes"], user: "nobody:nogroup")
        #expect(r.failure == nil && r.results.exitStatus == 1, "\(r.transcript)")
        #expect(Self.text(r).contains("Not installed: writing \(target) and reloading udev need root."), "\(r.transcript)")
        for command in ["sudo mkdir -p /etc/udev/hwdb.d", "sudo systemd-hwdb update",
                        "sudo udevadm trigger --verbose --action=change --settle /sys/bus/iio/devices/iio:device0",
                        Self.match, " ACCEL_MOUNT_MATRIX=\(truth)"] {
            #expect(r.stdout.contains(command), "no line \(command) in \(r.transcript)")
        }
        #expect(r.stderr.contains("rotationd: writing \(target) and reloading udev need root: run sudo rotationd --fix-mount, or run the commands above as root"), "\(r.transcript)")
        #expect(FileManager.default.fileExists(atPath: target) == before)
    }
}

/// The busy sensor's message, as `MountFixError.busy` words it for fix-mount.umockdev's display.
enum MountFixErrorText {
    static let busy = "cannot read /sys/bus/iio/devices/iio:device0/in_accel_x_raw: the device is busy (EBUSY): another program runs the buffer of iio:device0, and its driver refuses raw reads meanwhile; stop that program for the minute this takes (iio-sensor-proxy: systemctl stop iio-sensor-proxy; rotationd itself never holds such a buffer) and run again"
}
