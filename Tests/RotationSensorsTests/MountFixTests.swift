import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing
import TestSupport

/// `rotationd --fix-mount` driven end to end on emulated sensors mounted otherwise than udev says: the poses set
/// as raw attributes, the entry installed under a scratch root (`ROTATIOND_ROOT`, compiled and queried with the
/// real systemd-hwdb), and for some of them read back: rotationd run with the matrix the database gives, set as
/// the udev property, publishing each pose right. The pure solver covers all 48 mountings (`MountSolverTests`);
/// these take a few, to keep the suite short.
@Suite("The guided mount fix on emulated sensors")
struct MountFixTests {
    static let g = 9.80665
    /// The display of fix-mount.umockdev: its scale, the matrix udev gives it, and the key udev looks it up by.
    static let scale = 0.076614
    static let udevMatrix = try! MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1")
    static let dmi = "dmi:bvnAmericanMegatrendsInc.:bvr5.11:bd05/07/2016:br5.11:svnEmulatedTabs:pnTab10:pvrV1.0:rvnEmulatedTabs:rnTab10Board:rvrDefaultstring:cvnDefaultstring:ct10:cvrDefaultstring:skuTAB10:"
    static let key = "sensor:accel-display:modalias:acpi:BOSC0200:BOSC0200::" + dmi
    static let match = "sensor:accel-display:modalias:acpi:BOSC0200*:dmi:*:svnEmulatedTabs:pnTab10:pvrV1.0:*"

    /// The raw attributes of a sensor mounted by `truth` (device = truth × sensor) with scale `scale`, while the
    /// device reads `up` × g.
    static func raw(_ up: Vector3, truth: MountMatrix, scale: Double = scale) -> [String: DriverJSON] {
        let s = SignedPermutation.sensorReading(up * g, truth: truth) * (1 / scale)
        return ["in_accel_x_raw": .int(Int(s.x.rounded())), "in_accel_y_raw": .int(Int(s.y.rounded())),
                "in_accel_z_raw": .int(Int(s.z.rounded()))]
    }

    /// A directory removed when the value goes.
    final class Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-fix-mount-\(UUID().uuidString)").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var hwdb: String { path + "/etc/udev/hwdb.d/61-sensor-local.hwdb" }
    }

    /// The steps that hold `poses` of `device` one after the other (the first set before the program starts,
    /// since it is measured at once without a terminal), each once the one before was held.
    static func hold(_ device: String, _ poses: [Vector3], truth: MountMatrix, scale: Double = scale, first: Bool = true) -> [Step] {
        var steps: [Step] = []
        for (i, up) in poses.enumerated() {
            if i > 0 || !first { steps.append(.set(device, raw(up, truth: truth, scale: scale))) }
            steps.append(.wait(.stdout("pose \(i + 1) held", within: Tolerance.slowReply)))
        }
        return steps
    }

    static let display = MountPose.display.map(\.up)

    /// The program's stdout as one line, for phrases that wrapping may break.
    static func text(_ r: Testbed.Result) -> String { r.stdout.joined(separator: " ") }

    /// The mount matrix after `ACCEL_MOUNT_MATRIX=` in `file`'s entry whose match line is `match`.
    static func entryMatrix(_ file: String, match: String) throws -> MountMatrix {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let at = try #require(lines.firstIndex { $0 == match }, "no entry \(match) in \(lines)")
        let property = try #require(lines[(at + 1)...].first { $0.hasPrefix(" ACCEL_MOUNT_MATRIX=") })
        return try MountMatrix.parse(String(property.dropFirst(" ACCEL_MOUNT_MATRIX=".count)))
    }

    /// What the database under `root` gives `key`, by systemd-hwdb: as udev would set it.
    static func query(_ key: String, root: String) throws -> [String] {
        try ChildProcess.run("/usr/bin/systemd-hwdb", ["--root", root, "query", key]).out.split(separator: "\n").map(String.init)
    }

    /// `fixture` copied into `scratch` with `properties` added to the udev properties of each device named, and
    /// any ACCEL_MOUNT_MATRIX it had dropped: a device as udev describes it once the entry applies.
    static func fixture(_ fixture: String, in scratch: Scratch, properties: [String: [String]]) throws -> String {
        var out: [String] = []
        var device = ""
        for line in try String(contentsOf: Testbed.fixtures.appendingPathComponent(fixture), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("N: ") { device = String(line.dropFirst(3)) }
            if line.hasPrefix("E: ACCEL_MOUNT_MATRIX=") { continue }
            out.append(String(line))
            if line == "E: SUBSYSTEM=iio" { out += (properties[device] ?? []).map { "E: " + $0 } }
        }
        let path = scratch.path + "/" + fixture
        try out.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
