import Foundation
import RotationEngine
import RotationProtocol
@testable import RotationSensors
import Testing

/// Every distinct `ACCEL_MOUNT_MATRIX` of the systemd hwdb as Debian ships it
/// (`Tests/fixtures/hwdb-accel-mount-matrices.txt`, made by `scripts/hwdb-matrices.sh`).
@Suite("Mount matrices of the shipped systemd hwdb")
struct ShippedHwdbMatrixTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/hwdb-accel-mount-matrices.txt")

    /// The matrix texts, exactly as written after `ACCEL_MOUNT_MATRIX=` (a trailing blank included).
    static let shipped: [String] = {
        guard let text = try? String(contentsOf: fixture, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }()

    /// Bush Windows tablet and Insyde i101c: the third row repeats the first, or the second's opposite.
    static let bush = "1, 0, 0; 0, -1, 0; 1, 0, 0"
    static let insyde = "0,1,0;-1,0,0;-1,0,0"

    static let g = 9.81
    /// The four upright poses in the device frame, with the rotation each must give.
    static let poses: [(Vector3, Rotation)] = [
        (Vector3(0, -g, 0), .normal), (Vector3(g, 0, 0), .leftUp), (Vector3(0, g, 0), .bottomUp), (Vector3(-g, 0, 0), .rightUp),
    ]

    /// The engine's state after a second of the device held still at reading `a`.
    static func engineState(holding a: Vector3) -> DeviceState {
        var engine = OrientationEngine()
        for i in 0..<50 { _ = engine.process(Sample(time: Double(i) / 50, acceleration: a)) }
        return engine.state
    }

    static func isSignedPermutation(_ m: MountMatrix) -> Bool {
        let rows = [m.row0, m.row1, m.row2]
        let entries = rows.flatMap { [$0.x, $0.y, $0.z] }
        guard entries.allSatisfy({ $0 == 0 || abs($0) == 1 }) else { return false }
        let columns = [Vector3(m.row0.x, m.row1.x, m.row2.x), Vector3(m.row0.y, m.row1.y, m.row2.y), Vector3(m.row0.z, m.row1.z, m.row2.z)]
        return (rows + columns).allSatisfy { [$0.x, $0.y, $0.z].filter { $0 != 0 }.count == 1 }
    }

    @Test("the fixture holds the shipped matrices, the two broken ones among them")
    func fixtureIsThere() {
        #expect(Self.shipped.count >= 20, "read \(Self.shipped.count) matrices from \(Self.fixture.path)")
        #expect(Self.shipped.contains(Self.bush) && Self.shipped.contains(Self.insyde))
        #expect(Set(Self.shipped).count == Self.shipped.count, "the fixture repeats a matrix")
    }

    @Test("every shipped matrix is accepted with its first two rows as written, and every upright pose reads as that rotation",
          arguments: shipped)
    func everyShippedMatrixIsAccepted(text: String) throws {
        let given = try MountMatrix.parse(text)
        let used = try given.validated()
        #expect(used.row0 == given.row0 && used.row1 == given.row1)
        // All shipped matrices are signed permutations of ±1 and 0, or become one with the third row replaced.
        #expect(Self.isSignedPermutation(used), "\(used)")
        #expect(abs(abs(used.determinant) - 1) < 1e-12, "\(used)")
        for (device, rotation) in Self.poses {
            // What the sensor reads in that pose: the matrix is orthogonal, so its inverse is its transpose.
            let sensor = used.row0 * device.x + used.row1 * device.y + used.row2 * device.z
            let a = SensorCalibration(scale: Vector3(1, 1, 1), matrix: used).apply(raw: sensor)
            #expect((a - device).length < 1e-9, "\(text): \(sensor) became \(a), expected \(device)")
            #expect(Self.engineState(holding: a).rotation == rotation, "\(text) held \(rotation)")
        }
    }

    @Test("a usable shipped matrix is used exactly as written; only the two whose third row repeats another are changed",
          arguments: shipped)
    func onlyBrokenOnesChange(text: String) throws {
        let given = try MountMatrix.parse(text)
        let used = try given.validated()
        let broken = text == Self.bush || text == Self.insyde
        #expect((used != given) == broken, "\(text) became \(used)")
    }

    @Test("the two shipped matrices whose third row repeats another get row 1 × row 2 instead: every upright pose keeps its rotation, untilted, and face up reads face up",
          arguments: [(bush, Vector3(0, 0, -1)), (insyde, Vector3(0, 0, 1))])
    func brokenMatricesAreRepaired(text: String, thirdRow: Vector3) throws {
        let given = try MountMatrix.parse(text)
        let used = try given.validated()
        #expect(used.row0 == given.row0 && used.row1 == given.row1)
        #expect(used.row2 == thirdRow, "\(used)")
        #expect(used.row2 == used.row0.cross(used.row1))
        // A right-handed sensor in a right-handed device: the mounting is a rotation.
        #expect(used.determinant == 1)
        // A sensor whose rows 1 and 2 are right is mounted by the one rotation with those rows, the expected
        // matrix above: its reading in each pose follows from that rotation.
        let physical = MountMatrix(given.row0, given.row1, thirdRow)
        for (device, rotation) in Self.poses {
            let sensor = physical.row0 * device.x + physical.row1 * device.y + physical.row2 * device.z
            let a = SensorCalibration(scale: Vector3(1, 1, 1), matrix: used).apply(raw: sensor)
            #expect((a - device).length < 1e-9)
            #expect(Self.engineState(holding: a).rotation == rotation, "\(text) held \(rotation)")
        }
        let faceUp = Vector3(0, 0, Self.g)
        let sensor = physical.row2 * Self.g
        let a = SensorCalibration(scale: Vector3(1, 1, 1), matrix: used).apply(raw: sensor)
        #expect((a - faceUp).length < 1e-9)
        #expect(Self.engineState(holding: a).tilt == .faceUp)
        // As shipped, the same face-up sensor would read level on every axis, and one upright pose would be tilted.
        #expect(given.apply(sensor).z == 0)
        #expect(Self.poses.contains { given.apply(physical.row0 * $0.0.x + physical.row1 * $0.0.y).z != 0 })
    }
}
