import Foundation
import Testing
import TestSupport

/// Permission denied for real: `rotationd --serve` runs as the unprivileged user nobody (through setpriv) under
/// umockdev, where file modes apply to it as sysfs's do, and a socket client follows it.
///
/// Needs root, to switch users; skipped otherwise.
@Suite("Permission denied, with rotationd running as nobody", .serialized, .enabled(if: geteuid() == 0, "needs root to start rotationd as nobody"))
struct PermissionTests {
    static let user = "nobody:nogroup"
    static let fix = "(run rotationd as the user rotationd, as its systemd service does, once udev has applied 60-rotationd.rules to the device (udevadm trigger), or as root)"

    @Test("a raw attribute that becomes unreadable: one error naming the file and the fix, the client stays connected and sees the sensor lost, and the rotation follows the device again once the file is readable")
    func unreadableRawAttribute() async throws {
        let socket = Testbed.socketPath("perm-raw")
        let raw = "sys/bus/iio/devices/iio:device0/in_accel_x_raw"
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .connect(socket),
            .wait(.socket(LiveSensorTests.normal)),
            .chmod(raw, "000"),
            .wait(.socket("\"sensor\":\"lost\"")),
            .wait(.stderr("in_accel_x_raw: Permission denied")),
            // Turned right edge up while the file cannot be read (it keeps its mode 000).
            .set("iio:device0", ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]),
            // Rescans try the sensor again every second meanwhile, and say nothing again (a time, not a wait).
            .sleep(2.5),
            .alive,
            .chmod(raw, "644"),
            .wait(.socket("\"sensor\":\"ok\"")),
            .wait(.socket(LiveSensorTests.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket], user: Self.user)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // One connection throughout: idle, ok, lost while unreadable, ok again.
        #expect(r.socketStatuses() == ["idle", "ok", "lost", "ok"], "\(r.transcript)")
        let states = r.socket(1).filter { $0["type"] as? String == "state" }
        let lost = try #require(states.firstIndex { $0["sensor"] as? String == "lost" }, "\(r.transcript)")
        let back = try #require(states.lastIndex { $0["sensor"] as? String == "ok" && $0["rotation"] as? Int == 0 }, "\(r.transcript)")
        let turned = try #require(states.firstIndex { $0["rotation"] as? Int == 270 }, "\(r.transcript)")
        #expect(lost < back && back < turned, "\(r.transcript)")
        // The last rotation held while the sensor was lost.
        #expect(states[lost]["rotation"] as? Int == 0, "\(states[lost])")
        let denied = r.stderr.filter { $0.contains("Permission denied") }
        #expect(denied == ["rotationd: error: cannot read /sys/bus/iio/devices/iio:device0/in_accel_x_raw: Permission denied \(Self.fix)"],
                "\(r.transcript)")
        #expect(r.stderr.filter { $0.contains("sensor lost") } == ["rotationd: warning: sensor lost; trying it again every second"],
                "\(r.transcript)")
        #expect(r.stderr.filter { $0.contains("as the display accelerometer") }.count == 1, "\(r.transcript)")
    }

    @Test("an unwritable buffer/enable: one error naming that file and the fix, the rotation is polled meanwhile, and the next sampling reads the buffer once the file is writable")
    func unwritableBufferEnable() async throws {
        let socket = Testbed.socketPath("perm-buffer")
        let dev = "sys/bus/iio/devices/iio:device0/"
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            // The device and its node belong to rotationd's user, as a udev rule would give them, except that
            // buffer/enable is read-only.
            .chown("sys/devices/platform/accel-buffered", Self.user),
            .chown("dev/iio:device0", Self.user),
            .chmod(dev + "buffer/enable", "444"),
            .set("iio:device0", ["in_accel_x_raw": 523, "in_accel_y_raw": 13, "in_accel_z_raw": 5]),
            .start,
            .connect(socket),
            .wait(.stderr("cannot write /sys/bus/iio/devices/iio:device0/buffer/enable: Permission denied")),
            .wait(.socket(LiveSensorTests.normal)),
            .alive,
            .chmod(dev + "buffer/enable", "644"),
            .disconnect,
            .wait(.stderr("sampling stopped in")),
            // Now only the buffer says right edge up; the raw attributes still say upright.
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .connect(socket),
            .wait(.socket(LiveSensorTests.rightUp)),
            .expectFile(dev + "buffer/enable", "1"),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"], user: Self.user)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // Polling served the first client without a gap: the sensor never went lost. The second connected once
        // sampling had stopped, so it is greeted with the idle state, never with the first one's ok.
        #expect(r.socketStatuses(1) == ["idle", "ok"], "\(r.transcript)")
        #expect(r.socketStatuses(2) == ["idle", "ok"], "\(r.transcript)")
        let denied = r.stderr.filter { $0.contains("Permission denied") }
        #expect(denied == ["rotationd: error: cannot write /sys/bus/iio/devices/iio:device0/buffer/enable: Permission denied \(Self.fix); polling /sys/bus/iio/devices/iio:device0/in_accel_*_raw at 50.0 Hz instead of reading the buffer"],
                "\(r.transcript)")
    }
}
