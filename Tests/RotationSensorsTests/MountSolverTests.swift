import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing

/// The 48 signed permutation matrices (each row one ±1, in a different column), and what a sensor mounted by one
/// of them reads.
enum SignedPermutation {
    /// Every one, in a fixed order.
    static let all: [MountMatrix] = {
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        var out: [MountMatrix] = []
        for order in orders {
            for signs in 0..<8 {
                let rows = (0..<3).map { r -> Vector3 in
                    var c = [0.0, 0.0, 0.0]
                    c[order[r]] = signs & (1 << r) == 0 ? 1 : -1
                    return Vector3(c[0], c[1], c[2])
                }
                out.append(MountMatrix(rows[0], rows[1], rows[2]))
            }
        }
        return out
    }()

    /// `a × b`.
    static func product(_ a: MountMatrix, _ b: MountMatrix) -> MountMatrix {
        let bt = transpose(b)
        func row(_ r: Vector3) -> Vector3 { Vector3(r.dot(bt.row0), r.dot(bt.row1), r.dot(bt.row2)) }
        return MountMatrix(row(a.row0), row(a.row1), row(a.row2))
    }

    /// The transpose, which is the inverse of a signed permutation.
    static func transpose(_ m: MountMatrix) -> MountMatrix {
        MountMatrix(Vector3(m.row0.x, m.row1.x, m.row2.x), Vector3(m.row0.y, m.row1.y, m.row2.y), Vector3(m.row0.z, m.row1.z, m.row2.z))
    }

    /// What a sensor mounted by `truth` (device = truth × sensor) reads, in its own frame, when the device reads
    /// `device`: truthᵀ × device.
    static func sensorReading(_ device: Vector3, truth: MountMatrix) -> Vector3 { transpose(truth).apply(device) }
}

@Suite("Mount matrix from three poses")
struct MountSolverTests {
    static let g = 9.80665

    /// `v` turned by `degrees` about the axis `axis` (a unit vector): a hand that holds a pose a little askew.
    static func tilted(_ v: Vector3, by degrees: Double, about axis: Vector3) -> Vector3 {
        let a = degrees * .pi / 180
        // Rodrigues' formula.
        return v * cos(a) + axis.cross(v) * sin(a) + axis * (axis.dot(v) * (1 - cos(a)))
    }

    /// The readings of a sensor mounted by `truth` in `poses`, each held up to 8° askew, its gravity 2 % off the
    /// others', in counts of a scale of 0.0196.
    static func readings(truth: MountMatrix, poses: [MountPose], seed: Int) -> [Vector3] {
        let axes = [Vector3(0.6, 0.8, 0), Vector3(0, 0.6, 0.8), Vector3(0.8, 0, 0.6)]
        return poses.enumerated().map { i, pose in
            let held = tilted(pose.up * (g * (1 + 0.01 * Double((seed + i) % 3 - 1))), by: Double((seed * 7 + i * 3) % 9), about: axes[(seed + i) % 3])
            return SignedPermutation.sensorReading(held, truth: truth) * (1 / 0.0196)
        }
    }

    @Test("each of the 48 signed permutations is found from the display's poses, whatever matrix is in force: the result is the correction composed with the current matrix, and that correction is a signed permutation")
    func allDisplayMountings() throws {
        let currents = [MountMatrix.identity, try MountMatrix.parse("0, -1, 0; -1, 0, 0; 0, 0, 1"), try MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1")]
        #expect(SignedPermutation.all.count == 48 && Set(SignedPermutation.all).count == 48)
        for (n, truth) in SignedPermutation.all.enumerated() {
            let solved = try MountSolver.solve(Self.readings(truth: truth, poses: MountPose.display, seed: n), poses: MountPose.display)
            #expect(solved == truth, "mounting \(truth)")
            for current in currents + [truth] {
                let expected = SignedPermutation.product(truth, SignedPermutation.transpose(current))
                let correction = try #require(MountSolver.correction(to: solved, from: current))
                #expect(correction == expected, "correction from \(current) for \(truth)")
                #expect(SignedPermutation.product(correction, current) == solved)
                #expect(SignedPermutation.all.contains(correction))
            }
        }
    }

    @Test("each of the 48 is found from the keyboard base's poses, in the frame the hwdb asks of a base (keys up reads (0, 0, −g))")
    func allBaseMountings() throws {
        for (n, truth) in SignedPermutation.all.enumerated() {
            let readings = Self.readings(truth: truth, poses: MountPose.base, seed: n + 5)
            let solved = try MountSolver.solve(readings, poses: MountPose.base)
            #expect(solved == truth, "mounting \(truth)")
            #expect(MountSolver.angle(solved.apply(readings[0]), Vector3(0, 0, -1)) < 10)
        }
    }

    @Test("a correct matrix turns each pose's reading into the pose: upright (0, −g, 0), left edge up (+g, 0, 0), face up (0, 0, +g)")
    func posesReadAsTheFrameSays() {
        #expect(MountPose.upright.up == Vector3(0, -1, 0))
        #expect(MountPose.leftEdgeUp.up == Vector3(1, 0, 0))
        #expect(MountPose.faceUp.up == Vector3(0, 0, 1))
        #expect(MountPose.keysUp.up == Vector3(0, 0, -1))
        #expect(MountPose.upright.reading(Vector3(0.3, 9.7, 0.2)) == "upside down")
        #expect(MountPose.keysUp.reading(Vector3(0, 9.8, 0)) == "hinge up")
    }

    static let upright = Vector3(0.1, -9.8, 0.2), leftUp = Vector3(9.8, 0.2, -0.1), faceUp = Vector3(0.1, 0.1, 9.8)

    @Test("a pose repeated is refused, naming both")
    func repeatedPose() {
        do {
            _ = try MountSolver.solve([Self.upright, Self.leftUp, Self.upright * 1.01], poses: MountPose.display)
            Issue.record("solved")
        } catch {
            guard case .repeated(1, 3, let degrees) = error else { Issue.record("\(error)"); return }
            #expect(degrees < 1)
            #expect(error.description.hasPrefix("pose 3 read the same way up as pose 1"))
        }
    }

    @Test("a pose turned half a turn instead of a quarter is refused")
    func oppositePose() {
        #expect(throws: MountPoseError.opposite(first: 1, second: 2)) {
            try MountSolver.solve([Self.upright, Vector3(-0.1, 9.8, -0.2), Self.faceUp], poses: MountPose.display)
        }
    }

    @Test("poses not a quarter turn apart are refused with the angle between them")
    func notOrthogonal() throws {
        let halfway = Vector3(6.93, -6.93, 0)
        do {
            _ = try MountSolver.solve([Self.upright, halfway, Self.faceUp], poses: MountPose.display)
            Issue.record("solved")
        } catch {
            guard case .notOrthogonal(1, 2, let degrees) = error else { Issue.record("\(error)"); return }
            #expect(abs(degrees - 45) < 1.5)
            #expect(error.description.contains("quarter turn"))
        }
    }

    @Test("readings a quarter turn apart but 35° off the sensor's axes are refused: no axis is clearly up")
    func notAxisAligned() throws {
        let turn = { (v: Vector3) in Self.tilted(v, by: 35, about: Vector3(0, 0, 1)) }
        do {
            _ = try MountSolver.solve([turn(Self.upright), turn(Self.leftUp), turn(Self.faceUp)], poses: MountPose.display)
            Issue.record("solved")
        } catch {
            guard case .notAxisAligned(1, let degrees) = error else { Issue.record("\(error)"); return }
            #expect(abs(degrees - 35) < 2)
        }
    }

    @Test("a pose whose gravity is a quarter longer than the others' is refused; 10 % is an uncalibrated offset and passes")
    func gravityLength() throws {
        #expect(throws: MountPoseError.self) { try MountSolver.solve([Self.upright, Self.leftUp * 1.25, Self.faceUp], poses: MountPose.display) }
        _ = try MountSolver.solve([Self.upright, Self.leftUp * 1.1, Self.faceUp], poses: MountPose.display)
        #expect(throws: MountPoseError.noGravity(pose: 3)) { try MountSolver.solve([Self.upright, Self.leftUp, .zero], poses: MountPose.display) }
    }

    @Test("the correction is refused for a matrix in force that is not orthonormal")
    func correctionNeedsARotation() throws {
        #expect(MountSolver.correction(to: .identity, from: try MountMatrix.parse("2, 0, 0; 0, 1, 0; 0, 0, 1")) == nil)
        #expect(MountSolver.correction(to: .identity, from: try MountMatrix.parse("1, 0, 0; 1, 1, 0; 0, 0, 1")) == nil)
    }
}
