import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing
import TestSupport

extension MountFixTests {
    /// The steps of a whole display fix: the three poses, then the check, upright again.
    static func displayFix(truth: MountMatrix) -> [Step] {
        [.set("iio:device0", raw(display[0], truth: truth)), .start] + hold("iio:device0", display, truth: truth)
            + [.wait(.stdout("^Check:", within: Tolerance.slowReply)), .set("iio:device0", raw(display[0], truth: truth)),
               .exit(within: Tolerance.slowReply)]
    }

    @Test("the display's fix, for a sample of the 48 mountings (each unlike the matrix udev gives): the entry written under the scratch root holds the correction composed with udev's matrix, systemd-hwdb gives it back for the display's key, the check pose reads upright; read back as udev's property, rotationd publishes each of the four rotations",
          arguments: [(0, false), (13, true), (27, false), (46, true)])
    func displayFixed(index: Int, readBack: Bool) async throws {
        let truth = SignedPermutation.all[index]
        let scratch = try Scratch()
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"], steps: Self.displayFix(truth: truth),
                                      arguments: ["--fix-mount", "--yes"], environment: ["ROTATIOND_ROOT": scratch.path])
        #expect(r.failure == nil && r.results.exitStatus == 0, "\(r.transcript)")
        let written = try Self.entryMatrix(scratch.hwdb, match: Self.match)
        let correction = SignedPermutation.product(truth, SignedPermutation.transpose(Self.udevMatrix))
        #expect(written == SignedPermutation.product(correction, Self.udevMatrix), "wrote \(written) for mounting \(truth)")
        #expect(Self.text(r).contains("iio:device0: the mount matrix is \(truth);"), "\(r.transcript)")
        #expect(Self.text(r).contains("it reads upright through the new matrix: fixed."), "\(r.transcript)")
        let given = try Self.query(Self.key, root: scratch.path)
        #expect(given == ["ACCEL_MOUNT_MATRIX=\(truth)"])
        if readBack { try await Self.readBack(try MountMatrix.parse(String(given[0].dropFirst(19))), truth: truth, in: scratch) }
    }

    /// rotationd run with `matrix` as udev's ACCEL_MOUNT_MATRIX of the display mounted by `truth`, turned a
    /// quarter at a time through the four rotations.
    static func readBack(_ matrix: MountMatrix, truth: MountMatrix, in scratch: Scratch) async throws {
        let path = try fixture("fix-mount.umockdev", in: scratch, properties: ["iio:device0": ["ACCEL_MOUNT_MATRIX=\(matrix)"]])
        let turns = [(Vector3(0, -1, 0), 0), (Vector3(1, 0, 0), 90), (Vector3(0, 1, 0), 180), (Vector3(-1, 0, 0), 270)]
        var steps: [Step] = [.set("iio:device0", raw(turns[0].0, truth: truth)), .start]
        for (i, (up, rotation)) in turns.enumerated() {
            if i > 0 { steps.append(.set("iio:device0", raw(up, truth: truth))) }
            steps.append(.wait(.stdout("\"rotation\":\(rotation),", within: Tolerance.slowReply)))
        }
        let r = try await Testbed.run(devices: [path], steps: steps + [.stop], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90, 180, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("using iio:device0") }, "\(r.transcript)")
    }

    @Test("a display mounted as udev says: the matrix in force is right, nothing is written, and the status is 0")
    func alreadyRight() async throws {
        let scratch = try Scratch()
        let r = try await Testbed.run(devices: ["fix-mount.umockdev"],
                                      steps: [.set("iio:device0", Self.raw(Self.display[0], truth: Self.udevMatrix)), .start]
                                        + Self.hold("iio:device0", Self.display, truth: Self.udevMatrix) + [.exit(within: Tolerance.slowReply)],
                                      arguments: ["--fix-mount", "--yes"], environment: ["ROTATIOND_ROOT": scratch.path])
        #expect(r.failure == nil && r.results.exitStatus == 0, "\(r.transcript)")
        #expect(Self.text(r).contains("the mount matrix in force, \(Self.udevMatrix), is right."), "\(r.transcript)")
        #expect(r.stdout.contains("Nothing to fix: the mount matrix in force is right."), "\(r.transcript)")
        #expect(!FileManager.default.fileExists(atPath: scratch.hwdb))
    }

    @Test("a convertible's display and keyboard base, each mounted otherwise than its matrix says: two entries, the base's with ACCEL_LOCATION=base and in the hwdb's base frame; read back, rotationd tells the laptop and the stand from them")
    func convertible() async throws {
        let (displayTruth, baseTruth) = (SignedPermutation.all[20], SignedPermutation.all[37])
        let scale = 0.009582, base = MountPose.base.map(\.up)
        let scratch = try Scratch()
        var steps: [Step] = [.set("iio:device0", Self.raw(Self.display[0], truth: displayTruth, scale: scale)),
                             .set("iio:device1", Self.raw(base[0], truth: baseTruth, scale: scale)), .start]
        steps += Self.hold("iio:device0", Self.display, truth: displayTruth, scale: scale)
        steps += Self.hold("iio:device1", base, truth: baseTruth, scale: scale)
        steps += [.wait(.stdout("^Check:", within: Tolerance.slowReply)), .set("iio:device0", Self.raw(Self.display[0], truth: displayTruth, scale: scale)),
                  .wait(.stdout("^Check:", within: Tolerance.slowReply)), .set("iio:device1", Self.raw(base[0], truth: baseTruth, scale: scale)),
                  .exit(within: Tolerance.slowReply)]
        let r = try await Testbed.run(devices: ["fix-mount-convertible.umockdev"], steps: steps,
                                      arguments: ["--fix-mount", "--yes"], environment: ["ROTATIOND_ROOT": scratch.path])
        #expect(r.failure == nil && r.results.exitStatus == 0, "\(r.transcript)")
        let dmi = ":*:svnEmulatedBooks:pnDefaultstring:*:rvnEmulatedBooks:rnFlip11:*:skuFLIP11-8G:*"
        #expect(try Self.entryMatrix(scratch.hwdb, match: "sensor:modalias:acpi:KIOX010A*:dmi" + dmi) == displayTruth)
        #expect(try Self.entryMatrix(scratch.hwdb, match: "sensor:modalias:acpi:KIOX020A*:dmi" + dmi) == baseTruth)
        #expect(try String(contentsOfFile: scratch.hwdb, encoding: .utf8).contains("ACCEL_MOUNT_MATRIX=\(baseTruth)\n ACCEL_LOCATION=base\n"))
        #expect(Self.text(r).contains("it reads keys up through the new matrix: fixed."), "\(r.transcript)")
        let fixture = try Self.fixture("fix-mount-convertible.umockdev", in: scratch, properties: [
            "iio:device0": ["ACCEL_MOUNT_MATRIX=\(displayTruth)"], "iio:device1": ["ACCEL_MOUNT_MATRIX=\(baseTruth)"]])
        // Opened to 240°: the base in the trace frame reads (0, −g cos φ, −g sin φ) with φ = 60°; in the hwdb's
        // base frame (x, −y, −z).
        let stand = Vector3(0, cos(Double.pi / 3), sin(Double.pi / 3))
        let back = try await Testbed.run(devices: [fixture], steps: [
            .set("iio:device0", Self.raw(Self.display[0], truth: displayTruth, scale: scale)),
            .set("iio:device1", Self.raw(base[0], truth: baseTruth, scale: scale)), .start,
            .wait(.stdout(#""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#, within: Tolerance.slowReply)),
            .set("iio:device1", Self.raw(stand, truth: baseTruth, scale: scale)),
            .wait(.stdout(#""posture":"stand","hinge":2(3[5-9]|4[0-5]),"#, within: Tolerance.slowReply)), .stop,
        ], arguments: ["--print"])
        #expect(back.failure == nil && back.status == 0, "\(back.transcript)")
        #expect(back.postures == ["laptop", "stand"], "\(back.transcript)")
    }
}
