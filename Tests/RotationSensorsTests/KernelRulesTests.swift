import Foundation
import Testing
import TestSupport

/// The emulated kernel refuses what the real one refuses (`Tests/Testbed/kernel`), so the sensor tests
/// fail the way a device does. Writes go through libiio as rotationd's do (`Tests/Testbed/probes/iio-write.py`).
@Suite("The test bed's kernel refuses writes as the IIO core and the drivers do")
struct KernelRulesTests {
    /// Writes each (device, file, value) in order through libiio, as the program under test.
    static func attrs(_ fixture: String, _ writes: [(String, String, String)], then steps: [Step] = []) async throws -> Testbed.Result {
        try await Testbed.run(devices: [fixture], steps: [.start, .exit(within: Tolerance.exit)] + steps,
                            arguments: [Testbed.probes.appendingPathComponent("iio-write.py").path]
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
        ], then: [.expectFile("sys/bus/iio/devices/iio:device0/buffer/length", "16"),
                  .expectFile("sys/bus/iio/devices/iio:device0/buffer/watermark", "13")])
        #expect(r.failure == nil, "\(r.transcript)")
        // libiio hands the errno to its caller.
        #expect(r.stdout.prefix(2) == ["iio:device0 buffer/watermark 13: EINVAL", "iio:device0 buffer/enable 1: EINVAL"], "\(r.stdout)")
        #expect(r.kernelWrites.map(\.description) == [
            "iio:device0 buffer/watermark \"13\" EINVAL watermark above buffer/length 2",
            "iio:device0 buffer/enable \"1\" EINVAL no scan element is enabled",
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 buffer/length \"16\" ok",
            "iio:device0 buffer/watermark \"13\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 buffer/length \"32\" EBUSY the buffer is enabled",
            "iio:device0 buffer/watermark \"8\" EBUSY the buffer is enabled",
            "iio:device0 scan_elements/in_accel_y_en \"1\" EBUSY the buffer is enabled",
        ], "\(r.kernelWrites)")
    }

    @Test("a frequency outside the driver's table is EINVAL and leaves the value; one in it is taken and printed as the driver prints it")
    func frequencyTable() async throws {
        let r = try await Self.attrs("zoo/bmc150-dual.umockdev", [
            ("iio:device0", "in_accel_sampling_frequency", "50"),
            ("iio:device0", "in_accel_sampling_frequency", "62.5"),
        ], then: [.expectFile("sys/bus/iio/devices/iio:device0/in_accel_sampling_frequency", "62.500000")])
        #expect(r.failure == nil, "\(r.transcript)")
        #expect(r.kernelWrites.map(\.description) == ["iio:device0 in_accel_sampling_frequency \"50\" EINVAL not in the driver's table",
                             "iio:device0 in_accel_sampling_frequency \"62.5\" ok"], "\(r.kernelWrites)")
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
        #expect(kx.kernelWrites.map(\.description) == [
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 trigger/current_trigger \"nobody-dev9\" ok",
            "iio:device0 buffer/enable \"1\" EINVAL a triggered buffer with no trigger",
            "iio:device0 trigger/current_trigger \"i2c-KIOX000A:00-dev0\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 trigger/current_trigger \"i2c-KIOX000A:00-any-motion-dev0\" EBUSY a triggered buffer is running",
        ], "\(kx.kernelWrites)")
        // bmc150 takes only its own triggers; its base device has none, and the display's are another parent's.
        let bmc = try await Self.attrs("zoo/bmc150-dual.umockdev", [
            ("iio:device1", "trigger/current_trigger", "BMA250E-dev0"),
            ("iio:device0", "trigger/current_trigger", "BMA250E-dev0"),
        ])
        #expect(bmc.kernelWrites.map(\.description) == ["iio:device1 trigger/current_trigger \"BMA250E-dev0\" EINVAL BMA250E-dev0 is not this device's own trigger",
                               "iio:device0 trigger/current_trigger \"BMA250E-dev0\" ok"], "\(bmc.kernelWrites)")
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
        #expect(r.kernelWrites.map(\.description) == [
            "iio:device0 in_accel_sampling_frequency_available EACCES read-only attribute",
            "iio:device0 sampling_frequency EACCES no such attribute",
            "iio:device0 in_accel_x_raw EACCES read-only attribute",
            "iio:device0 scan_elements/in_accel_x_en \"1\" ok",
            "iio:device0 in_accel_sampling_frequency \"50\" ok",
            "iio:device0 buffer/enable \"1\" EINVAL in_accel_sampling_frequency (50.000000) differs from in_anglvel_sampling_frequency (25.000000)",
            "iio:device0 in_anglvel_sampling_frequency \"50\" ok",
            "iio:device0 buffer/enable \"1\" ok",
            "iio:device0 in_accel_sampling_frequency \"100\" EBUSY the buffer is enabled",
        ], "\(r.kernelWrites)")
    }

    /// Runs `iio-events.py` with `steps`; where they wait for events, zoo/four-poses.csv (turns at 3.0, 6.6 and
    /// 10.2 s, 0.45 s each) starts playing once the steps before the first wait are done (it prints "ready").
    /// Its waits end at a time into the trace, not after a time of their own, so a slow start or a slow step
    /// never moves a turn into the wrong wait; a step that comes too late says so, and fails the test.
    static func events(_ fixture: String, _ steps: [String], then more: [Step] = []) async throws -> Testbed.Result {
        let play: [Step] = steps.contains { $0.hasPrefix("wait ") }
            ? [.wait(.stdout("^ready$", within: Tolerance.probe)), .play("zoo/four-poses.csv", seconds: 20)] : []
        return try await Testbed.run(devices: [fixture], steps: [.start] + play + [.exit(within: Tolerance.probe)] + more,
                            arguments: [Testbed.probes.appendingPathComponent("iio-events.py").path] + steps,
                            program: "/usr/bin/python3")
    }

    @Test("the event interface: one descriptor per device at a time (EBUSY), another once it is closed; an event only while enabled and only for a change above the threshold in the driver's unit; kxcjk-1013 refuses threshold writes while enabled (EBUSY)")
    func eventInterface() async throws {
        let r = try await Self.events("zoo/kxcjk-1013.umockdev", [
            "eventfd iio:device0", "eventfd iio:device0",
            "write iio:device0 in_accel_sampling_frequency 12.5",
            "write iio:device0 events/in_accel_x_thresh_either_value 255",
            "write iio:device0 events/in_accel_x_thresh_either_en 1",
            "write iio:device0 events/in_accel_x_thresh_either_value 1",
            // The first turn: enabled, but 255 steps of 1/16 g is more than any turn.
            "wait iio:device0 4.8",
            "write iio:device0 events/in_accel_x_thresh_either_en 0",
            "write iio:device0 events/in_accel_x_thresh_either_value 1",
            // The second: 1/16 g is less than a turn moves in a sample at 12.5 Hz, but nothing is enabled.
            "wait iio:device0 8.4",
            "write iio:device0 events/in_accel_z_thresh_either_en 1",
            "read iio:device0 events/in_accel_x_thresh_either_en",
            // The third: enabled (one enable for the three axes) and above the threshold.
            "wait iio:device0 12",
            "close iio:device0", "eventfd iio:device0",
        ])
        #expect(r.failure == nil && !r.stdout.contains { $0.hasSuffix(": late") }, "\(r.transcript)")
        #expect(Array(r.stdout.prefix(2)) == ["eventfd iio:device0: ok", "eventfd iio:device0: EBUSY"], "\(r.stdout)")
        #expect(r.stdout.contains("write iio:device0 events/in_accel_x_thresh_either_value 1: EBUSY"), "\(r.stdout)")
        #expect(r.stdout.contains("read iio:device0 events/in_accel_x_thresh_either_en: 1"), "\(r.stdout)")
        let waits = r.stdout.filter { $0.hasPrefix("event ") }
        #expect(waits.count >= 3 && waits[0] == "event iio:device0: none" && waits[1] == "event iio:device0: none", "\(r.stdout)")
        // IIO_EV_TYPE_THRESH, rising or falling, on an axis.
        #expect(waits.dropFirst(2).allSatisfy { $0.hasPrefix("event iio:device0: 0 1 ") || $0.hasPrefix("event iio:device0: 0 2 ") }
                && waits.count > 2, "\(r.stdout)")
        #expect(r.stdout.last == "eventfd iio:device0: ok", "\(r.stdout)")
        #expect(r.kernelWrites.filter { $0.value == "IIO_GET_EVENT_FD_IOCTL" }.map(\.description) == [
            "iio:device0 dev/iio:device0 \"IIO_GET_EVENT_FD_IOCTL\" ok",
            "iio:device0 dev/iio:device0 \"IIO_GET_EVENT_FD_IOCTL\" EBUSY another event descriptor is open",
            "iio:device0 dev/iio:device0 \"IIO_GET_EVENT_FD_IOCTL\" ok",
        ], "\(r.kernelWrites)")
    }

    @Test("driver quirks of the event files: st_lsm6dsx stops sampling when its buffer is disabled, events enabled or not, until an enable powers it again; bmi323 puts its any-motion threshold back to 1 g at each enable write; mma8452's threshold starts at its maximum, inv_mpu6050's at 0")
    func eventQuirks() async throws {
        let st = try await Self.events("zoo/st_lsm6dsx.umockdev", [
            "eventfd iio:device0",
            "write iio:device0 events/in_accel_x_thresh_either_value 2",
            "read iio:device0 events/in_accel_z_thresh_either_value",
            "write iio:device0 events/in_accel_x_thresh_either_en 1",
            "write iio:device0 scan_elements/in_accel_x_en 1",
            "write iio:device0 buffer/enable 1", "write iio:device0 buffer/enable 0",
            // The first turn: enabled, but the accelerometer is off.
            "wait iio:device0 4.8",
            // Enabling again changes nothing while an axis is enabled; all off, then on, powers it.
            "write iio:device0 events/in_accel_x_thresh_either_en 1",
            "wait iio:device0 8.4",
            "write iio:device0 events/in_accel_x_thresh_either_en 0", "write iio:device0 events/in_accel_x_thresh_either_en 1",
            "wait iio:device0 12",
        ])
        #expect(st.failure == nil && !st.stdout.contains { $0.hasSuffix(": late") }, "\(st.transcript)")
        #expect(st.stdout.contains("read iio:device0 events/in_accel_z_thresh_either_value: 2"), "one threshold for the three axes: \(st.stdout)")
        let waits = st.stdout.filter { $0.hasPrefix("event ") }
        #expect(waits.count >= 3 && waits[0] == "event iio:device0: none" && waits[1] == "event iio:device0: none"
                && waits[2].hasPrefix("event iio:device0: 0 0 "), "\(st.stdout)")
        #expect(st.refusedWrites.isEmpty, "\(st.kernelWrites)")

        let bmi = try await Self.attrs("zoo/bmi323.umockdev", [
            ("iio:device0", "events/in_accel_mag_rising_value", "0.5"),
            ("iio:device0", "events/in_accel_mag_rising_en", "1"),
            ("iio:device0", "events/in_accel_mag_rising_value", "8.5"),
        ], then: [.expectFile("sys/bus/iio/devices/iio:device0/events/in_accel_mag_rising_value", "1.000000")])
        #expect(bmi.failure == nil, "\(bmi.transcript)")
        #expect(bmi.kernelWrites.map(\.description) == [
            "iio:device0 events/in_accel_mag_rising_value \"0.5\" ok",
            "iio:device0 events/in_accel_mag_rising_en \"1\" ok",
            "iio:device0 events/in_accel_mag_rising_value \"8.5\" EINVAL outside the driver's range",
        ], "\(bmi.kernelWrites)")

        let mma = try await Self.events("zoo/mma8452.umockdev", ["read iio:device0 events/in_accel_mag_rising_value", "read iio:device0 events/in_accel_scale"])
        #expect(mma.stdout.prefix(2) == ["read iio:device0 events/in_accel_mag_rising_value: 127", "read iio:device0 events/in_accel_scale: 0.617742"],
                "\(mma.transcript)")
        let inv = try await Self.events("zoo/inv_mpu6050.umockdev", ["read iio:device0 events/in_accel_x|y|z_roc_rising_value"])
        #expect(inv.stdout.first == "read iio:device0 events/in_accel_x|y|z_roc_rising_value: 0.000000", "\(inv.transcript)")
    }

    @Test("a device node is held by one open file at a time: a second open, in the same process or another, is EBUSY while the first is open, and taken once it is closed; the feeder's scans still reach the open file")
    func nodeHeldOnce() async throws {
        let script = """
            import os, select, subprocess, sys
            def attempt(label):
                try:
                    fd = os.open("/dev/iio:device0", os.O_RDONLY | os.O_NONBLOCK)
                    print(label + ": ok", flush=True)
                    return fd
                except OSError as e:
                    print(label + ": " + ("EBUSY" if e.errno == 16 else str(e)), flush=True)
            first = attempt("first")
            attempt("second")
            child = "import os\\ntry:\\n os.open('/dev/iio:device0', os.O_RDONLY)\\n print('other process: ok')\\nexcept OSError as e:\\n print('other process: ' + ('EBUSY' if e.errno == 16 else str(e)))"
            print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip(), flush=True)
            select.select([first], [], [], 5)
            print("scans: %d bytes" % len(os.read(first, 4096)), flush=True)
            os.close(first)
            os.close(attempt("after close"))
            """
        let r = try await Testbed.run(devices: ["zoo/hid-sensor.umockdev"], steps: [
            .set("iio:device0", ["buffer/enable": "1"]),
            .feed("/dev/iio:device0", format: "<hxxhxxhxxxxxxq", values: [0, -256, 0], hz: 50),
            .start, .exit(within: Tolerance.exit),
        ], arguments: ["-c", script], program: "/usr/bin/python3")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(Array(r.stdout.prefix(3)) == ["first: ok", "second: EBUSY", "other process: EBUSY"], "\(r.transcript)")
        #expect(r.stdout.contains { $0.hasPrefix("scans: ") && $0 != "scans: 0 bytes" }, "\(r.stdout)")
        #expect(r.stdout.last == "after close: ok", "\(r.stdout)")
        #expect(r.kernelOpens.count == 2 && r.kernelOpens.allSatisfy { $0.device == "iio:device0" && $0.node == "dev/iio:device0" && $0.errno == "EBUSY" },
                "\(r.kernelOpens)")
    }
}
