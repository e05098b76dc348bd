import Foundation
import Testing
import TestSupport

/// Convertibles: the posture and hinge of a base and a display accelerometer, and a detachable's base taken off,
/// put back, or found while the capture runs.
extension LiveSensorTests {
    /// A convertible's layout for the live posture test: its fixture, its display and base sensors, the display's
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

    @Test("a detachable's base taken off gives tablet with no hinge, and put back (the same sensor, reappearing) laptop again with its hinge; the display's rotation holds throughout")
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
            // Put back as it was (Tests/fixtures/base-detachable.umockdev: the same sensor face up).
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
        // Tests/fixtures/base-renumbered.umockdev: the same sensor face up, as iio:device2.
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
}
