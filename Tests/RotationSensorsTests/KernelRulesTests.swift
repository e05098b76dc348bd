import Foundation
import Testing

/// The emulated kernel refuses what the real one refuses (`Tests/fixtures/iio-kernel.c`), so the sensor tests
/// fail the way a device does. Writes go through libiio as rotationd's do (`Tests/fixtures/iio-write.py`).
@Suite("The test bed's kernel refuses writes as the IIO core and the drivers do")
struct KernelRulesTests {
    /// Writes each (device, file, value) in order through libiio, as the program under test.
    static func attrs(_ fixture: String, _ writes: [(String, String, String)], then steps: [[Any]] = []) async throws -> UmockdevRun.Result {
        try await UmockdevRun.run(devices: [fixture], steps: [["start"], ["exit", 20]] + steps,
                            arguments: [UmockdevRun.fixtures.appendingPathComponent("iio-write.py").path]
                                + writes.flatMap { [$0.0, $0.1, $0.2] },
                            program: "/usr/bin/python3")
    }

    @Test("the buffer: a watermark above the length is EINVAL and leaves the value; the length first, then the watermark, is taken; nothing changes while enabled (EBUSY); enabling with no scan element is EINVAL")
    func bufferRules() async throws {
        let r = try await Self.attrs("zoo/bmc150-dual.umockdev", [
            ("iio:device0", "buffer/watermark", "13"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "scan_elements/in_accel_x_en", "1"),
            ("iio:device0", "buffer/length", "16"),
            ("iio:device0", "buffer/watermark", "13"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "buffer/length", "32"),
            ("iio:device0", "buffer/watermark", "8"),
            ("iio:device0", "scan_elements/in_accel_y_en", "1"),
        ], then: [["expect-file", "sys/bus/iio/devices/iio:device0/buffer/length", "16"],
                  ["expect-file", "sys/bus/iio/devices/iio:device0/buffer/watermark", "13"]])
        #expect(r.failure == nil, "\(r.transcript)")
        // libiio hands the errno to its caller.
        #expect(r.stdout.prefix(2) == ["iio:device0 buffer/watermark 13: EINVAL", "iio:device0 buffer/enable 1: EINVAL"], "\(r.stdout)")
        #expect(r.kernel == [
            "iio:device0 buffer/watermark \"13\" EINVAL watermark above buffer/length 2",
            "iio:device0 buffer/enable \"1\" EINVAL no scan element is enabled",
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 buffer/length \"16\" ok",
            "iio:device0 buffer/watermark \"13\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 buffer/length \"32\" EBUSY the buffer is enabled",
            "iio:device0 buffer/watermark \"8\" EBUSY the buffer is enabled",
            "iio:device0 scan_elements/in_accel_y_en \"1\" EBUSY the buffer is enabled",
        ], "\(r.kernel)")
    }

    @Test("a frequency outside the driver's table is EINVAL and leaves the value; one in it is taken and printed as the driver prints it")
    func frequencyTable() async throws {
        let r = try await Self.attrs("zoo/bmc150-dual.umockdev", [
            ("iio:device0", "in_accel_sampling_frequency", "50"),
            ("iio:device0", "in_accel_sampling_frequency", "62.5"),
        ], then: [["expect-file", "sys/bus/iio/devices/iio:device0/in_accel_sampling_frequency", "62.500000"]])
        #expect(r.failure == nil, "\(r.transcript)")
        #expect(r.kernel == ["iio:device0 in_accel_sampling_frequency \"50\" EINVAL not in the driver's table",
                             "iio:device0 in_accel_sampling_frequency \"62.5\" ok"], "\(r.kernel)")
    }

    @Test("a triggered-only buffer with no trigger cannot be enabled (EINVAL); a trigger name nobody has detaches the trigger; a trigger of another device is refused where the driver accepts only its own")
    func triggers() async throws {
        let kx = try await Self.attrs("zoo/kxcjk-1013.umockdev", [
            ("iio:device0", "scan_elements/in_accel_x_en", "1"),
            ("iio:device0", "trigger/current_trigger", "nobody-dev9"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "trigger/current_trigger", "i2c-KIOX000A:00-dev0"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "trigger/current_trigger", "i2c-KIOX000A:00-any-motion-dev0"),
        ])
        #expect(kx.failure == nil, "\(kx.transcript)")
        #expect(kx.kernel == [
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 trigger/current_trigger \"nobody-dev9\" ok",
            "iio:device0 buffer/enable \"1\" EINVAL a triggered buffer with no trigger",
            "iio:device0 trigger/current_trigger \"i2c-KIOX000A:00-dev0\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 trigger/current_trigger \"i2c-KIOX000A:00-any-motion-dev0\" EBUSY a triggered buffer is running",
        ], "\(kx.kernel)")
        // bmc150 takes only its own triggers; its base device has none, and the display's are another parent's.
        let bmc = try await Self.attrs("zoo/bmc150-dual.umockdev", [
            ("iio:device1", "trigger/current_trigger", "BMA250E-dev0"),
            ("iio:device0", "trigger/current_trigger", "BMA250E-dev0"),
        ])
        #expect(bmc.kernel == ["iio:device1 trigger/current_trigger \"BMA250E-dev0\" EINVAL BMA250E-dev0 is not this device's own trigger",
                               "iio:device0 trigger/current_trigger \"BMA250E-dev0\" ok"], "\(bmc.kernel)")
    }

    @Test("read-only attributes, a raw reading among them, cannot be opened for writing (EACCES), nor can files the device does not have; bmi323 refuses to enable with unequal rates")
    func readOnlyAndDriverRules() async throws {
        let r = try await Self.attrs("zoo/bmi323.umockdev", [
            ("iio:device0", "in_accel_sampling_frequency_available", "1"),
            ("iio:device0", "sampling_frequency", "50"),
            ("iio:device0", "in_accel_x_raw", "5"),
            ("iio:device0", "scan_elements/in_accel_x_en", "1"),
            ("iio:device0", "in_accel_sampling_frequency", "50"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "in_anglvel_sampling_frequency", "50"),
            ("iio:device0", "buffer/enable", "1"),
            ("iio:device0", "in_accel_sampling_frequency", "100"),
        ])
        #expect(r.failure == nil, "\(r.transcript)")
        #expect(r.kernel == [
            "iio:device0 in_accel_sampling_frequency_available EACCES read-only attribute",
            "iio:device0 sampling_frequency EACCES no such attribute",
            "iio:device0 in_accel_x_raw EACCES read-only attribute",
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 in_accel_sampling_frequency \"50\" ok",
            "iio:device0 buffer/enable \"1\" EINVAL in_accel_sampling_frequency (50.000000) differs from in_anglvel_sampling_frequency (25.000000)",
            "iio:device0 in_anglvel_sampling_frequency \"50\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 in_accel_sampling_frequency \"100\" EBUSY the buffer is enabled",
        ], "\(r.kernel)")
    }
}
