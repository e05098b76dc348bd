import Foundation
import Glibc
import Testing
import TestSupport

/// What rotationd writes to a device and puts back: nothing of a buffer another program enabled, and what a
/// rotationd that crashed had changed.
extension LiveSensorTests {
    @Test("a buffer enabled by another program is never disabled nor written, even with its node free (its reader opens it now and then): the sensor is read through its raw attributes, and nothing of the device is written")
    func foreignBufferIsLeftAlone() async throws {
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            // As iio-sensor-proxy 3.0 leaves a HID hub between its reads: scan elements and buffer enabled, the
            // node closed. The raw attributes say upright, then right edge up.
            .set("iio:device0", ["scan_elements/in_accel_x_en": 1, "scan_elements/in_accel_y_en": 1,
                                    "scan_elements/in_accel_z_en": 1, "scan_elements/in_timestamp_en": 1, "buffer/enable": 1,
                                    "in_accel_x_raw": 523, "in_accel_y_raw": 13, "in_accel_z_raw": 5]),
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]),
            .wait(.stdout(Self.rightUp)),
            .stop,
            .expectFile("sys/bus/iio/devices/iio:device0/buffer/enable", "1"),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer, polled; beside another program's buffer (buffer/enable reads 1)") },
                "\(r.transcript)")
        #expect(r.kernelWrites.filter { $0.device == "iio:device0" }.isEmpty, "wrote to a device another program captures from: \(r.kernelWrites)")
    }

    @Test("what a rotationd that crashed had changed (its record in the runtime directory: a buffer it enabled, a frequency it set) is put back by the next one before it reads the device, which then reads it through the buffer; a record whose process lives is left alone")
    func crashedCaptureIsPutBack() async throws {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-run-\(UUID().uuidString)")
        let dir = run.appendingPathComponent("sensors")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: run) }
        // As SettingsJournal writes them, from a process that no longer runs (its lock is free), and one whose
        // process still runs (this test process holds its lock).
        let crashed = "changed\tiio:device0\taccel_3d\tsampling_frequency\t10\n"
            + "changed\tiio:device0\taccel_3d\tbuffer/enable\t0\n"
        try crashed.write(to: dir.appendingPathComponent("capture-999999"), atomically: false, encoding: .utf8)
        let live = dir.appendingPathComponent("capture-1")
        try "changed\tiio:device0\taccel_3d\tbuffer/watermark\t7\n".write(to: live, atomically: false, encoding: .utf8)
        let held = open(live.path, O_RDWR)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .set("iio:device0", ["scan_elements/in_accel_x_en": 1, "scan_elements/in_accel_y_en": 1,
                                    "scan_elements/in_accel_z_en": 1, "scan_elements/in_timestamp_en": 1, "buffer/enable": 1,
                                    "sampling_frequency": 50,
                                    "in_accel_x_raw": 523, "in_accel_y_raw": 13, "in_accel_z_raw": 5]),
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .start,
            .wait(.stdout(Self.rightUp)),
            .alive,
        ], arguments: ["--print"], environment: ["RUNTIME_DIRECTORY": run.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [270], "\(r.transcript)")
        #expect(r.kernelWrites.prefix(2).map(\.description) == ["iio:device0 buffer/enable \"0\" ok", "iio:device0 sampling_frequency \"10\" ok"],
                "\(r.kernelWrites)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: info: put back what rotationd (process 999999) changed") }, "\(r.transcript)")
        #expect(!r.kernelWrites.contains { $0.file == "buffer/watermark" && $0.value == "7" }, "put back a live process's record: \(r.kernelWrites)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("capture-999999").path))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }
}
