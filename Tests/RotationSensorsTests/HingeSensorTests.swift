import Foundation
import Testing
@testable import RotationSensors
import TestSupport

/// A convertible's hinge sensor read live (`HingeSensor`): the real `rotationd` against the emulated drivers of
/// `Tests/fixtures/hinge-hid.umockdev` (hid-sensor-custom-intel-hinge) and `lid-angle-cros-ec.umockdev`
/// (cros-ec-lid-angle), each beside a polled display accelerometer; and the drivers' units turned into degrees.
@Suite("Hinge sensors read live", .serialized)
struct HingeSensorTests {
    /// One driver's hinge sensor in its fixture: where the angle is and how many counts a degree is.
    struct HingeLayout: Sendable, CustomStringConvertible {
        var fixture: String
        var device: String
        var rawFile: String
        var countsPerDegree: Double
        var heading: String
        var postureLine: String
        var description: String { fixture }

        /// The attribute set to read `degrees`.
        func angle(_ degrees: Double) -> [String: DriverJSON] {
            [rawFile: .int(Int((degrees * countsPerDegree).rounded()))]
        }
    }

    static let layouts = [
        // The hub counts tenths of a degree: in_angl_scale is 0.001745329 rad.
        HingeLayout(fixture: "hinge-hid.umockdev", device: "iio:device1", rawFile: "in_angl0_raw", countsPerDegree: 10,
                    heading: "iio:device1: hinge (hinge sensor, hid-sensor-custom-intel-hinge)",
                    postureLine: "posture: from the hinge sensor iio:device1 (hinge, in_angl0_raw), used first"),
        HingeLayout(fixture: "lid-angle-cros-ec.umockdev", device: "iio:device1", rawFile: "in_angl_raw", countsPerDegree: 1,
                    heading: "iio:device1: cros-ec-lid-angle (hinge sensor, cros-ec-lid-angle)",
                    postureLine: "posture: from the hinge sensor iio:device1 (cros-ec-lid-angle, in_angl_raw), used first"),
    ]

    /// The hinge published with the first state line in `posture`.
    static func hinge(_ r: Testbed.Result, first posture: String) -> Int? {
        r.events.first { $0["posture"] as? String == posture }?["hinge"] as? Int
    }

    @Test("a hinge sensor changed at run time from a laptop's 110° to folded back at 350° gives laptop, then tablet, with the hinge within 10°; nothing of the sensor is written",
          arguments: layouts)
    func laptopThenTablet(_ layout: HingeLayout) async throws {
        let r = try await Testbed.run(devices: [layout.fixture], steps: [
            .set(layout.device, layout.angle(110)),
            .start,
            .wait(.stdout(#""posture":"laptop","hinge":1[0-2][0-9],"#, within: Tolerance.listing)),
            .set(layout.device, layout.angle(350)),
            .wait(.stdout(#""posture":"tablet","hinge":3[4-6][0-9],"#)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.postures == ["laptop", "tablet"], "\(r.transcript)")
        let laptop = try #require(Self.hinge(r, first: "laptop"), "\(r.transcript)")
        let tablet = try #require(Self.hinge(r, first: "tablet"), "\(r.transcript)")
        #expect(abs(laptop - 110) <= 10 && abs(tablet - 350) <= 10, "laptop \(laptop)°, tablet \(tablet)°")
        #expect(r.rotations == [0], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer") &&
            $0.contains("hinge sensor \(layout.device)") && $0.contains("read for the posture and trusted first (\(layout.rawFile)") },
                "\(r.transcript)")
        #expect(r.kernelWrites.filter { $0.device == layout.device }.isEmpty, "wrote to the hinge sensor: \(r.kernelWrites)")
    }

    @Test("cros-ec's 500 (the EC cannot tell) gives no hinge and no posture rather than a wrong one, before and after a valid reading")
    func unreliableLidAngle() async throws {
        let device = "iio:device1"
        let r = try await Testbed.run(devices: ["lid-angle-cros-ec.umockdev"], steps: [
            // The fixture starts at 500. The first sample reads the lid angle, so every state line from the first
            // rotation on follows a reading of 500.
            .start,
            .wait(.stdout("\"rotation\":0,", within: Tolerance.listing)),
            .set(device, ["in_angl_raw": 120]),
            .wait(.stdout(#""posture":"laptop","hinge":1[12][0-9],"#)),
            // Unreliable again, then the display turned: the angle in force holds while it reads 500.
            .set(device, ["in_angl_raw": 500]),
            .set("iio:device0", ["in_accel_x_raw": 8192, "in_accel_y_raw": 0, "in_accel_z_raw": 0]),
            .wait(.stdout("\"rotation\":90,")),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let events = r.events.filter { $0["type"] as? String == "state" }
        let valid = try #require(events.firstIndex { $0["posture"] is String }, "\(r.transcript)")
        let firstRotation = try #require(events.firstIndex { $0["rotation"] is Int }, "\(r.transcript)")
        #expect(firstRotation < valid, "\(r.transcript)")
        #expect(events[..<valid].allSatisfy { $0["hinge"] is NSNull && $0["posture"] is NSNull }, "\(r.transcript)")
        #expect(events[valid...].allSatisfy { ($0["hinge"] as? Int).map { abs($0 - 120) <= 10 } == true && $0["posture"] as? String == "laptop" },
                "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
    }

    @Test("rotationd --list names the hinge sensor found, its raw attribute and units, and says it is used first for the posture",
          arguments: layouts)
    func listing(_ layout: HingeLayout) async throws {
        let r = try await Testbed.run(devices: [layout.fixture], steps: [
            .start, .wait(.stdout("^posture: ", within: Tolerance.listing)),
        ], arguments: ["--list"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stdout.contains(layout.heading), "\(r.transcript)")
        #expect(r.stdout.contains { $0.hasPrefix("  angle: \(layout.rawFile), offset 0 (") && $0.contains("1° a count") }, "\(r.transcript)")
        #expect(r.stdout.contains("  role: hinge sensor, read for the posture and used first"), "\(r.transcript)")
        #expect(r.stdout.contains { $0.hasPrefix(layout.postureLine) }, "\(r.transcript)")
    }

    @Test("each driver's counts become degrees: HID's radians scale and offset, cros-ec's whole degrees; 500 and other readings outside 0...360° are none")
    func degrees() {
        func hid(scale: Double, offset: Double = 0) -> HingeDescription {
            HingeDescription(id: "iio:device1", name: "hinge", driver: .hidCustomHinge, rawFile: "in_angl0_raw",
                             degreesPerCount: scale * 180 / Double.pi, scaleSource: "in_angl_scale", offset: offset,
                             offsetSource: "in_angl_offset")
        }
        let ec = HingeDescription(id: "iio:device1", name: "cros-ec-lid-angle", driver: .crosECLidAngle, rawFile: "in_angl_raw",
                                  degreesPerCount: 1, scaleSource: "the driver", offset: 0, offsetSource: "none")
        let whole = hid(scale: 0.017453293), tenths = hid(scale: 0.001745329)
        #expect(abs(whole.degrees(raw: 110)! - 110) < 0.001)
        #expect(abs(tenths.degrees(raw: 3500)! - 350) < 0.001)
        #expect(abs(hid(scale: 0.017453293, offset: -10).degrees(raw: 120)! - 110) < 0.001)
        // 360 counts through a nine-digit scale land a hair past 360°.
        #expect(whole.degrees(raw: 360) == 360)
        #expect(whole.degrees(raw: 0) == 0)
        #expect(whole.degrees(raw: 500) == nil)
        #expect(whole.degrees(raw: -5) == nil)
        #expect(ec.degrees(raw: 500) == nil)
        #expect(ec.degrees(raw: 361) == nil)
        #expect(ec.degrees(raw: 180) == 180)
        #expect(ec.degrees(raw: 360) == 360)
    }
}
