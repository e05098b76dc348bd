import Foundation
import Glibc
import Testing
import TestSupport

/// The real `rotationd` against emulated IIO devices from `Tests/fixtures/*.umockdev`.
///
/// Each test drives the devices with `Tests/Testbed/umockdev-driver.py` and fails when an expected rotation is
/// not published in time, when another one is, or when the daemon exits.
@Suite("Live sensors under umockdev", .serialized)
struct LiveSensorTests {
    static let normal = "\"rotation\":0,"
    static let leftUp = "\"rotation\":90,"
    static let bottomUp = "\"rotation\":180,"
    static let rightUp = "\"rotation\":270,"
    static let onda: [String: DriverJSON] = ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]

    @Test("a polled accelerometer: raw values changed at run time turn the published rotation")
    func polledValuesChangeAtRunTime() async throws {
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
            .set("iio:device0", ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]),
            .wait(.stdout(Self.bottomUp)),
            .alive,
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270, 180], "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: info: using iio:device0 (accel_3d) as the display accelerometer, polled") },
                "\(r.transcript)")
    }

    @Test("a buffered accelerometer: scans written into its device node are decoded; trigger, frequency and FIFO batch are set")
    func bufferedScansThroughThePTY() async throws {
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .wait(.stdout(Self.normal)),
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .wait(.stdout(Self.rightUp)),
            .expectFile("sys/bus/iio/devices/iio:device0/trigger/current_trigger", "accel_3d-dev0"),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "50"),
            // One scan per wake-up while the device moves (`movingWakeInterval`), with room for four.
            .expectFile("sys/bus/iio/devices/iio:device0/buffer/watermark", "1"),
            .expectFile("sys/bus/iio/devices/iio:device0/buffer/length", "4"),
            .expectFile("sys/bus/iio/devices/iio:device0/scan_elements/in_timestamp_en", "1"),
            .alive,
        ], arguments: ["--print", "--rate", "30"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer, buffered") }, "\(r.transcript)")
        #expect(!r.fellBackToPollingUnprompted(node), "fell back to polling:\n\(r.transcript)")
        // Besides rotationd's own lines, only libiio's notice that the buffer is read without mmap() may appear.
        #expect(r.stderr.allSatisfy { $0.hasPrefix("rotationd: ") || $0 == "WARNING: High-speed mode not enabled" },
                "\(r.transcript)")
    }

    @Test("a buffered device whose buffer stays silent for 500 ms is polled instead")
    func silentBufferFallsBackToPolling() async throws {
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .start,
            .wait(.stderr("the buffer delivered nothing within 500 ms; polling in_accel_\\*_raw at 50.0 Hz instead")),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [270], "\(r.transcript)")
    }

    @Test("a buffer that goes silent after delivering is polled instead, and the rotation keeps following the device")
    func bufferSilentLaterFallsBackToPolling() async throws {
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .wait(.stdout(Self.normal)),
            .feedStop(node),
            .set("iio:device0", Self.onda),
            .wait(.stderr("iio:device0: the buffer went silent for 500 ms; polling in_accel_\\*_raw at 50.0 Hz instead")),
            .wait(.stdout(Self.rightUp)),
            .alive,
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(!r.stdout.contains { $0.contains("\"sensor\":\"lost\"") }, "\(r.transcript)")
    }

    @Test("a buffer enabled by another program is never disabled nor written, even with its node free (its reader opens it now and then): the part is read through its raw attributes, and nothing of the device is written")
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
        // Upright the part reads (0, +g, 0) and left edge up (+g, 0, 0): through the hwdb rows 1 and 2 that is
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

    /// A convertible's layout for the live posture test: its fixture, its display and base parts, the display's
    /// raw counts upright (through its mount matrix) and the counts of 1 g.
    struct FoldLayout: Sendable, CustomStringConvertible {
        var fixture: String
        var display: String
        var base: String
        var upright: [Int]
        var countsPerG: Double
        var description: String { fixture }
    }

    /// The layouts whose display is read at the still pace while still. (A display watched by its motion event
    /// while still, as bmc150-dual's, reads its base once a second meanwhile: `TabletModeSwitchZooTests` folds
    /// the driver zoo's layouts.)
    static let foldLayouts = [
        FoldLayout(fixture: "base-display.umockdev", display: "iio:device1", base: "iio:device0", upright: [0, -512, 0], countsPerG: 512),
    ]

    @Test("a base and a display accelerometer read live give the posture and hinge: laptop, then folded past flat to a stand, then back into a tablet",
          arguments: foldLayouts)
    func baseAndDisplayPosture(_ layout: FoldLayout) async throws {
        // The display stays upright, (0, −g, 0). The base's raw counts are in systemd's hwdb frame (the display's
        // with the lid closed): face up it reads (0, 0, −g), a hinge of 90°; turned about the hinge so the angle
        // is 210°, 280° and 350°, it reads (0, −g·cos(hinge), −g·sin(hinge)).
        func base(_ hinge: Double) -> [String: DriverJSON] {
            let g = layout.countsPerG
            return ["in_accel_x_raw": 0, "in_accel_y_raw": .int(Int((-g * cos(hinge * Double.pi / 180)).rounded())),
                    "in_accel_z_raw": .int(Int((-g * sin(hinge * Double.pi / 180)).rounded()))]
        }
        let upright: [String: DriverJSON] = ["in_accel_x_raw": .int(layout.upright[0]), "in_accel_y_raw": .int(layout.upright[1]),
                                            "in_accel_z_raw": .int(layout.upright[2])]
        let laptop = #""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-fold-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let r = try await Testbed.run(devices: [layout.fixture], steps: [
            .set(layout.display, upright),
            .set(layout.base, base(90)),
            .start,
            .wait(.stdout(laptop, within: Tolerance.listing)),
            .set(layout.base, base(210)),
            .wait(.stdout(#""posture":"stand""#)),
            .set(layout.base, base(280)),
            .wait(.stdout(#""posture":"stand","hinge":2(7[5-9]|8[0-5]),"#)),
            .set(layout.base, base(350)),
            .wait(.stdout(#""posture":"tablet","hinge":3[45][0-9],"#)),
        ], arguments: ["--print", "--record", csv.path, "--camera", "front:front:0", "--camera", "world:front:0::base"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // The display never turned; the fold went laptop, stand, tablet, each once.
        #expect(r.rotations == [0], "\(r.transcript)")
        #expect(r.postures == ["laptop", "stand", "tablet"], "\(r.transcript)")
        let last = try #require(r.events.last { $0["posture"] as? String == "tablet" })
        let cameras = try #require(last["cameras"] as? [[String: Any]])
        #expect(cameras.map { $0["direction"] as? String } == ["forward", "backward"], "\(r.transcript)")
        // The recording carries the base in the engine's frame: folded back to 350°, the hwdb frame's
        // (0, −g·cos 350°, −g·sin 350°) is written as (0, g·cos 350°, g·sin 350°).
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "t,x,y,z,bx,by,bz", "\(lines.prefix(2))")
        let based = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }.filter { $0.count == 7 && !$0[4].isEmpty }
        let folded = try #require(based.last).compactMap { Double($0) }
        #expect(folded.count == 7 && abs(folded[5] - 9.81 * cos(350 * Double.pi / 180)) < 0.2 && abs(folded[6] - 9.81 * sin(350 * Double.pi / 180)) < 0.2,
                "\(based.last ?? [])")
        #expect(based.count < lines.count - 1, "the base is read at most ten times a second, not with every sample")
    }

    @Test("a detachable's base taken off gives tablet with no hinge, and put back (the same part, reappearing) laptop again with its hinge; the display's rotation holds throughout")
    func detachableBase() async throws {
        let device = "/sys/devices/platform/cros-ec-base/iio:device0"
        let laptop = #""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#
        let r = try await Testbed.run(devices: ["base-display.umockdev"], steps: [
            // Face up: a hinge of 90°.
            .set("iio:device0", ["in_accel_x_raw": 0, "in_accel_y_raw": 0, "in_accel_z_raw": -512]),
            .start,
            .wait(.stdout(laptop, within: Tolerance.listing)),
            .remove(device),
            .wait(.stdout(#""posture":"tablet","hinge":null,"#)),
            // Put back as it was (Tests/fixtures/base-detachable.umockdev: the same part face up).
            .add("base-detachable.umockdev"),
            .wait(.stdout(laptop, within: Tolerance.slowReply)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == ["laptop", "tablet", "laptop"], "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
    }

    @Test("a detachable's base that comes back as another IIO device, or is first attached after the start, is found while the capture runs and read for the posture: laptop with its hinge",
          arguments: [["base-display.umockdev"], ["polled.umockdev"]])
    func baseFoundWhileRunning(_ devices: [String]) async throws {
        let laptop = #""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#
        let detach: [Step] = devices == ["base-display.umockdev"] ? [
            .set("iio:device0", ["in_accel_x_raw": 0, "in_accel_y_raw": 0, "in_accel_z_raw": -512]),
            .start,
            .wait(.stdout(laptop, within: Tolerance.listing)),
            .remove("/sys/devices/platform/cros-ec-base/iio:device0"),
            .wait(.stdout(#""posture":"tablet","hinge":null,"#)),
        ] : [.start, .wait(.stdout(Self.normal, within: Tolerance.listing))]
        // Tests/fixtures/base-renumbered.umockdev: the same part face up, as iio:device2.
        let r = try await Testbed.run(devices: devices, steps: detach + [
            .add("base-renumbered.umockdev"),
            .wait(.stdout(laptop, within: Tolerance.slowReply)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == (devices == ["base-display.umockdev"] ? ["laptop", "tablet", "laptop"] : ["laptop"]), "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("base accelerometer iio:device2 (cros-ec-accel) found: read for the posture") }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
    }

    @Test("each kind of garbage raw value is skipped and logged at most once a second; a zero scale is refused by name")
    func garbageValues() async throws {
        // The fixture starts with x "abc", y empty and z overflowing; a sample is skipped at its first bad axis,
        // so the axes are repaired one at a time, each once its kind of garbage has been logged. The log allows
        // one line a second, so each kind stays for a second (the one before it was logged just before).
        let started = Date()
        let r = try await Testbed.run(devices: ["garbage.umockdev"], steps: [
            .start,
            .wait(.stderr("in_accel_x_raw holds \"abc\"")),
            .alive,
            .set("iio:device0", ["in_accel_x_raw": 0]),
            .wait(.stderr("in_accel_y_raw holds an empty value")),
            .alive,
            .set("iio:device0", ["in_accel_y_raw": -512]),
            .wait(.stderr("in_accel_z_raw holds \"99999999999999999999\"")),
            .alive,
            .set("iio:device0", ["in_accel_z_raw": 0]),
            .wait(.stdout(Self.normal)),
        ], arguments: ["--print"])
        let seconds = Date().timeIntervalSince(started)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
        // Nothing but the final, valid reading may produce a rotation.
        let firstRotation = r.stdout.firstIndex { $0.contains(Self.normal) }
        #expect(firstRotation == r.stdout.count - 1, "\(r.transcript)")
        let skipped = r.stderr.filter { $0.contains("sample skipped") }
        let prefix = "rotationd: warning: /sys/bus/iio/devices/iio:device0/"
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_x_raw holds \"abc\", expected a number") }, "\(r.transcript)")
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_y_raw holds an empty value, expected a number") }, "\(r.transcript)")
        #expect(skipped.contains { $0.hasPrefix(prefix + "in_accel_z_raw holds \"99999999999999999999\", expected a number") },
                "\(r.transcript)")
        // At 50 Hz the bad samples number about fifty a second; at most one line a second is logged, over no
        // longer than the whole run took (measured here, so a slow machine only widens the bound).
        #expect(skipped.count <= Int(seconds) + 1, "\(skipped.count) lines about skipped samples in a run of \(seconds) s:\n\(r.transcript)")
        #expect(skipped.allSatisfy { $0.hasPrefix(prefix + "in_accel_") }, "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: error: iio:device1: cannot use this accelerometer: /sys/bus/iio/devices/iio:device1/in_accel_scale holds \"0\"") },
                "\(r.transcript)")
    }

    @Test("a device removed while running publishes sensor lost, and the rotation resumes when it is added again")
    func removedAndAddedAgain() async throws {
        let path = "/sys/devices/platform/accel-polled/iio:device0"
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .uevent(path, .remove),
            .remove(path),
            .wait(.stdout("\"sensor\":\"lost\"")),
            // A time, not a wait: a rescan a second finds nothing, and the service goes on meanwhile.
            .sleep(1.2),
            .alive,
            // The same device again, now held right edge up (umockdev cannot recreate the device node).
            .add("polled-replugged.umockdev"),
            .wait(.stdout("\"sensor\":\"ok\"")),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("sensor iio:device0 went away") }, "\(r.transcript)")
    }

    @Test("with no sensor at all one line says what was looked for, and a sensor that appears later is used")
    func noSensorThenHotPlug() async throws {
        let r = try await Testbed.run(devices: [], steps: [
            .start,
            .wait(.stdout("\"sensor\":\"none\"")),
            // A time, not a wait: two rescans or more find nothing, and say nothing again.
            .sleep(2.5),
            .alive,
            .add("polled.umockdev"),
            .wait(.stdout(Self.normal)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let notFound = r.stderr.filter { $0.contains("no accelerometer found") }
        #expect(notFound == ["rotationd: warning: no accelerometer found: looked for an IIO device with input channels accel_x, accel_y and accel_z in /sys/bus/iio/devices; waiting for one to appear"],
                "\(r.transcript)")
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

    @Test("a trace recorded from the live sensor replays to the same published changes, at the same times")
    func recordThenReplay() async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-roundtrip-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let live = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
            .set("iio:device0", ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]),
            .wait(.stdout(Self.bottomUp)),
            // A time, not a wait: the recording goes on past the last change, so its replay reaches it too.
            .sleep(0.3),
        ], arguments: ["--print", "--record", csv.path])
        #expect(live.failure == nil && live.status == 0, "\(live.transcript)")
        #expect(live.rotations == [0, 270, 180], "\(live.transcript)")

        let replay = try ChildProcess.run(BuiltProducts.require("rotationd"), ["--replay", csv.path])
        #expect(replay.status == 0, "\(replay)")
        let replayed = replay.out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }

        // The live run's changes of the engine's state (its first event only says the sensor is ok).
        func decision(_ e: [String: Any]) -> String {
            "\(e["rotation"] ?? "-") \(e["tilt"] ?? "-") \(e["flat"] ?? "-") \(e["inputs"] ?? "-")"
        }
        let liveChanges = live.events.filter { $0["type"] as? String == "state" && $0["sensor"] as? String == "ok" }.dropFirst()
        #expect(liveChanges.count >= 3, "\(live.transcript)")
        #expect(liveChanges.map(decision) == replayed.map(decision), "live:\n\(live.transcript)\nreplayed: \(replayed)")
        let liveTimes = liveChanges.compactMap { $0["t"] as? Double }, replayTimes = replayed.compactMap { $0["t"] as? Double }
        #expect(liveTimes.count == replayTimes.count && zip(liveTimes, replayTimes).allSatisfy { abs($0 - $1) < 1e-3 },
                "\(liveTimes) vs \(replayTimes)")
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
        let list = try await Testbed.run(devices: ["imu-buffered.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from the accelerometer's, udev ACCEL_MOUNT_MATRIX)"),
                "\(list.transcript)")
    }

    @Test("a udev ANGLVEL_MOUNT_MATRIX wins for a gyroscope on the accelerometer's chip")
    func udevGyroscopeMatrixWins() async throws {
        let list = try await Testbed.run(devices: ["imu-anglvel-udev.umockdev"], steps: [.start, .wait(.stdout("^  at rest: ", within: Tolerance.listing))], arguments: ["--list"])
        #expect(list.stdout.contains("  mount matrix: 1, 0, 0; 0, -1, 0; 0, 0, -1 (from udev ANGLVEL_MOUNT_MATRIX)"), "\(list.transcript)")
        #expect(list.stdout.contains("  mount matrix: 0, -1, 0; -1, 0, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)"), "\(list.transcript)")
    }

    @Test("with --serve the sensor is opened only while a client is connected, and sampling resumes for the next one")
    func samplesOnlyWhileSubscribed() async throws {
        let socket = "/tmp/rotationd-ondemand-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let enable = "sys/bus/iio/devices/iio:device0/buffer/enable"
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            // Serving, and for half a second more (a time, not a wait), without having touched the sensor.
            .wait(.stderr("serving on ")),
            .sleep(0.5),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "10"),
            .connect(socket),
            .wait(.socket(Self.normal)),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "50"),
            .expectFile(enable, "1"),
            .disconnect,
            // The last client left: the buffer is closed again.
            .waitFile(enable, "0"),
            // A client that connects while the service is still going idle is greeted with the state from
            // before, ok; sampling starts again in any case.
            .connect(socket),
            .wait(.socket("\"sensor\":\"ok\"")),
            .waitFile(enable, "1"),
            // Sampling really runs again: a new pose is published.
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .wait(.socket(Self.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
        let rotations = r.socket(2).compactMap { $0["rotation"] as? Int }
        #expect(rotations.last == 270, "\(r.transcript)")
    }

    @Test("a live service is idle without clients; after the last client leaves it forgets the pose, so a pose changed meanwhile is what the next client gets")
    func idleForgetsThePose() async throws {
        let socket = "/tmp/rotationd-idle-pose-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .connect(socket),
            .wait(.socket(Self.normal)),
            // The emulated device node is a PTY that would queue scans written while the buffer is off (a
            // kernel buffer discards them), so the feeder pauses while nobody listens.
            .feedStop(node),
            .disconnect,
            .wait(.stderr("sampling stopped in")),
            // Turned right edge up while nobody listened.
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .connect(socket),
            .wait(.socket(Self.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // Stopping runs on the server's event loop, so it must be prompt: the pending buffer read is cancelled.
        // Left pending, the read would end only when the buffer had been silent for 500 ms (the feeder stopped
        // just before); the bound (`Tolerance.samplingStop`) is half of that, so a busy machine delaying the
        // sensor thread's exit is not mistaken for a read that was not cancelled.
        let stopLine = try #require(r.stderr.first { $0.contains("sampling stopped in") }, "\(r.transcript)")
        let ms = Int(stopLine.split(separator: " ").dropLast().last ?? "") ?? .max
        #expect(ms < Int(Tolerance.samplingStop * 1000), "\(stopLine)")
        for n in [1, 2] {
            let messages = r.socket(n)
            let hello = try #require(messages.first, "\(r.transcript)")
            #expect(hello["type"] as? String == "hello" && hello["sensor"] as? String == "iio:device0 (accel_3d)",
                    "connection \(n): \(hello)")
            let states = messages.filter { $0["type"] as? String == "state" }
            // First the idle state without a rotation, then ok, then the pose as it is now.
            let first = try #require(states.first, "\(r.transcript)")
            #expect(first["sensor"] as? String == "idle" && first["rotation"] is NSNull, "connection \(n): \(first)")
            let afterIdle = states.dropFirst()
            #expect(afterIdle.first?["sensor"] as? String == "ok", "connection \(n): \(states)")
            let firstRotation = afterIdle.first { !($0["rotation"] is NSNull) }?["rotation"] as? Int
            #expect(firstRotation == (n == 1 ? 0 : 270), "connection \(n): \(states)")
            #expect(afterIdle.allSatisfy { $0["sensor"] as? String == "ok" }, "connection \(n): \(states)")
        }
        // The first connection saw the service go idle only after it left, so it never saw that state again.
        #expect(!r.socket(2).contains { ($0["rotation"] as? Int) == 0 }, "the stale rotation was served:\n\(r.transcript)")
    }

    @Test("with --serve and no client the sensor is never opened")
    func idleWithoutSubscriber() async throws {
        let socket = "/tmp/rotationd-idle-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .start,
            // Serving, and for a second more (a time, not a wait).
            .wait(.stderr("serving on ")),
            .sleep(1.0),
            .alive,
            // Untouched since the fixture wrote it: no buffer, no sampling frequency, no trigger.
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "10"),
            .expectFile("sys/bus/iio/devices/iio:device0/trigger/current_trigger", ""),
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("using iio:device0") }, "\(r.transcript)")
    }

    @Test("--print stops, exiting 1, when the reader of its output goes away")
    func printStopsWhenReaderLeaves() throws {
        let device = Testbed.fixtures.appendingPathComponent("polled.umockdev").path
        let rotationd = Testbed.binDir + "/rotationd"
        let status = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-print-\(UUID().uuidString).status")
        defer { try? FileManager.default.removeItem(at: status) }
        // rotationd's own exit status, kept beside the pipeline: a rotationd that kept sampling after head
        // exited would only be ended by the timeout (which bounds the run), whose status is 124.
        _ = try ChildProcess.run("/bin/sh", ["-c", "{ timeout 60 umockdev-run -d '\(device)' -- '\(rotationd)' --print 2>/dev/null; echo $? > '\(status.path)'; } | head -n 1 >/dev/null"],
                                 timeout: nil)
        let exit = try String(contentsOf: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(exit == "1", "rotationd --print outlived its reader or failed otherwise: exit status \(exit)")
    }
}
