import Foundation
import Testing
import TestSupport

/// iio-sensor-proxy's own accelerometer integration cases (its `tests/integration-test.py`), restated against
/// rotationd: the same emulated devices and attribute values under umockdev (each sysfs value ending in the
/// newline the kernel writes), the real `rotationd --serve`, and a socket client in place of D-Bus.
///
/// iio-sensor-proxy's orientations map to rotationd's rotations by name: normal 0, left-up 90, right-up 270.
/// Its frame before any mount matrix is the one after it (`../shared/traces/README.md`): (−g, 0, 0) is right
/// edge up. None of these devices has a mount matrix other than the identity, so a raw x of −25.6 is right-up
/// in both.
///
/// Several of these sensors read 1 g as something far from 9.81 m/s² (256 or 2560 m/s², or 256 counts with no
/// scale at all): iio-sensor-proxy decides by direction alone, and so must rotationd.
@Suite("iio-sensor-proxy's accelerometer cases, against rotationd's socket", .serialized)
struct IIOSensorProxyCaseTests {

    /// Upstream `test_iio_poll_accel`.
    @Test("a polled sensor with raw y -25.6 and scale 10 is normal, then with raw x -25.6 right-up")
    func pollAccel() async throws {
        let socket = Testbed.socketPath("isp-poll")
        let r = try await Testbed.run(devices: ["isp-poll-accel.umockdev"], steps: [
            .start,
            .connect(socket),
            .wait(.socket("\"sensor\":\"ok\"")),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "50"),
            .wait(.socket(LiveSensorTests.normal)),
            .set("iio:device0", ["in_accel_x_raw": "-25.6", "in_accel_y_raw": "0"]),
            .wait(.socket(LiveSensorTests.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.socketRotations() == [0, 270], "\(r.transcript)")
        #expect(r.socket(1).first?["sensor"] as? String == "iio:device0 (IIO Test Accelerometer)", "\(r.transcript)")
        // A fractional raw value is a number, not garbage.
        #expect(!r.stderr.contains { $0.contains("sample skipped") }, "\(r.transcript)")
    }

    /// Upstream `test_iio_accel_base_location`.
    @Test("an accelerometer labelled accel-base alone publishes no rotation and no display sensor")
    func baseOnlyAccel() async throws {
        let socket = Testbed.socketPath("isp-base")
        let r = try await Testbed.run(devices: ["isp-poll-accel-base.umockdev"], steps: [
            .start,
            .connect(socket),
            .wait(.socket("\"sensor\":\"none\"")),
            .alive,
            // Never opened: its sampling frequency is as the fixture wrote it.
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "5.2"),
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let messages = r.socket(1)
        let hello = try #require(messages.first, "\(r.transcript)")
        #expect(hello["type"] as? String == "hello" && hello["sensor"] is NSNull, "\(hello)")
        let states = messages.filter { $0["type"] as? String == "state" }
        #expect(states.map { $0["sensor"] as? String } == ["idle", "none"], "\(r.transcript)")
        #expect(states.allSatisfy { $0["rotation"] is NSNull }, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("no display accelerometer found: iio:device0 (IIO Test Accelerometer) sits in the base (label accel-base)") },
                "\(r.transcript)")
    }

    /// Upstream `test_iio_buffer_accel`. Its scans come from binary files whose counts are not restated here.
    @Test("a buffered sensor with le:s16/32>>0 scans, a timestamp, trigger accel_3d-dev0 and no scale: normal, left-up, normal")
    func bufferAccel() async throws {
        let socket = Testbed.socketPath("isp-buffer")
        let node = "/dev/iio:device0"
        let dev = "sys/bus/iio/devices/iio:device0/"
        // x, y, z in the low 16 bits of 32 (the high half zero, so a reader that ignored the 16 valid bits would
        // see 65280 for -256), then the 64-bit timestamp at byte 16. Raw counts, 256 to 1 g (a 10-bit ±2 g sensor).
        let scan = "<hxxhxxhxxxxxxq"
        let r = try await Testbed.run(devices: ["isp-buffer-accel.umockdev"], steps: [
            .feed(node, format: scan, values: [0, -256, 0], hz: 50),
            .start,
            .connect(socket),
            .wait(.socket("\"sensor\":\"ok\"")),
            .expectFile(dev + "buffer/enable", "1"),
            .expectFile(dev + "scan_elements/in_accel_x_en", "1"),
            .expectFile(dev + "scan_elements/in_accel_y_en", "1"),
            .expectFile(dev + "scan_elements/in_accel_z_en", "1"),
            .expectFile(dev + "scan_elements/in_timestamp_en", "1"),
            .expectFile(dev + "trigger/current_trigger", "accel_3d-dev0"),
            .wait(.socket(LiveSensorTests.normal)),
            .feed(node, format: scan, values: [256, 0, 0], hz: 50),
            .wait(.socket(LiveSensorTests.leftUp)),
            .feed(node, format: scan, values: [0, -256, 0], hz: 50),
            .wait(.socket(LiveSensorTests.normal)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.socketRotations() == [0, 90, 0], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("using iio:device0 (IIO Test Accelerometer) as the display accelerometer, buffered") },
                "\(r.transcript)")
        #expect(!r.fellBackToPollingUnprompted(node), "fell back to polling:\n\(r.transcript)")
    }

    /// Upstream `test_iio_scale_decimal_separator2` (scale 0.000001), and the scale 0.000010 of its buffered
    /// `test_iio_scale_decimal_separator`, on the same polled sensor.
    @Test("with LC_NUMERIC=fr_FR.UTF-8 a scale of 0.000010 or 0.000001 is read with its point, and raw -256000000 is normal, then right-up",
          arguments: ["0.000010", "0.000001"])
    func commaDecimalLocale(scale: String) async throws {
        let locale = try #require(CommaDecimalLocale.make("fr_FR"),
                                  "no fr_FR locale: install the Debian package locales (scripts/install-deps.sh)")
        defer { locale.remove() }
        // The locale really is in effect for a child started this way: its C library writes 0,5 for 0.5.
        #expect(locale.decimalPointInChild() == ",", "fr_FR.UTF-8 is not loaded by a child process")
        let socket = Testbed.socketPath("isp-locale")
        let r = try await Testbed.run(devices: ["isp-poll-accel-micro.umockdev"], steps: [
            .set("iio:device0", ["in_accel_scale": .string(scale)]),
            .start,
            .connect(socket),
            .wait(.socket(LiveSensorTests.normal)),
            .set("iio:device0", ["in_accel_x_raw": "-256000000", "in_accel_y_raw": "0"]),
            .wait(.socket(LiveSensorTests.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket], environment: locale.environment)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.socketRotations() == [0, 270], "\(r.transcript)")
        // The scale as rotationd read it, not 0 nor 1 (what a strtod following the locale would make of it).
        let value = try #require(Double(scale))
        let list = try await Testbed.run(devices: ["isp-poll-accel-micro.umockdev"], steps: [
            .set("iio:device0", ["in_accel_scale": .string(scale)]),
            .start,
            .wait(.stdout("role:")),
        ], arguments: ["--list"], environment: locale.environment)
        #expect(list.stdout.contains("  scale: x \(value) (in_accel_scale), y \(value) (in_accel_scale), z \(value) (in_accel_scale)"),
                "\(list.transcript)")
    }
}
