import Glibc
import RotationProtocol

/// Works out a sensor's mount matrix from its readings in the guided fix's three poses: pure arithmetic, no I/O.
///
/// Each reading is the sensor's own (raw counts with its offset and scale applied, before any mount matrix),
/// taken while the device was held still in one of `MountPose`'s poses. The matrix is the one that turns every
/// reading into what that pose reads in the hwdb's frame: `up × g = M × reading`. A sensor is soldered square to
/// the board, so each reading lies along one of its axes and the matrix is a signed permutation (each row one ±1);
/// readings are rounded to it only when each one is clearly along an axis (`axisTolerance`), and when the poses
/// agree with each other: a quarter turn apart, none repeated, gravity the same length in each.
///
/// The matrix does not depend on the one in force: readings before it give the matrix from raw readings, which is
/// what udev's `ACCEL_MOUNT_MATRIX` is (it replaces the driver's, rather than adding to it). `correction(to:from:)`
/// gives how it differs from the one in force.
public enum MountSolver {
    /// How far (degrees) a reading may lie from the sensor's nearest axis, and two poses from a quarter turn
    /// apart: a hand holds a tablet square to within a few degrees, a laptop's screen leans back 10 to 20°.
    public static let axisTolerance = 25.0
    /// How far (relative) one pose's gravity may be from the others' median: an uncalibrated offset makes some
    /// poses read a few percent more than others; a shake or a clipped axis, far more.
    public static let lengthTolerance = 0.15
    /// Below this fraction of the largest reading's length a pose read no gravity.
    static let noGravity = 1e-3

    /// The signed-permutation mount matrix that turns `readings[i]` into what `poses[i]` reads.
    ///
    /// - Parameters:
    ///   - readings: one reading per pose, in the sensor's own frame (any unit: only directions and relative
    ///     lengths count).
    ///   - poses: the poses, three that are a quarter turn apart from each other (`MountPose.display` or `.base`).
    /// - Throws: the first inconsistency found, in this order: a pose without gravity or with the wrong length, two
    ///   poses repeated, opposite or not a quarter turn apart, a pose not along an axis.
    public static func solve(_ readings: [Vector3], poses: [MountPose]) throws(MountPoseError) -> MountMatrix {
        precondition(readings.count == poses.count && poses.count == 3, "three readings, one per pose")
        try checkLengths(readings)
        try checkPairs(readings)
        var rows = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        for (i, reading) in readings.enumerated() {
            let (axis, sign, degrees) = nearestAxis(reading)
            guard degrees <= axisTolerance else { throw .notAxisAligned(pose: i + 1, degrees: degrees) }
            let (deviceAxis, deviceSign, _) = nearestAxis(poses[i].up)
            rows[deviceAxis][axis] = sign * deviceSign
        }
        return MountMatrix(Vector3(rows[0][0], rows[0][1], rows[0][2]), Vector3(rows[1][0], rows[1][1], rows[1][2]),
                           Vector3(rows[2][0], rows[2][1], rows[2][2]))
    }

    /// Refuses a pose without gravity, or one whose gravity is more than `lengthTolerance` from the median.
    static func checkLengths(_ readings: [Vector3]) throws(MountPoseError) {
        let lengths = readings.map(\.length)
        let largest = lengths.max() ?? 0
        for (i, l) in lengths.enumerated() where !(l > noGravity * largest) || !l.isFinite {
            throw .noGravity(pose: i + 1)
        }
        let median = lengths.sorted()[lengths.count / 2]
        for (i, l) in lengths.enumerated() where abs(l - median) > lengthTolerance * median {
            let others = lengths.enumerated().filter { $0.offset != i }.map(\.element)
            throw .gravityLength(pose: i + 1, length: l, typical: others.reduce(0, +) / Double(others.count))
        }
    }

    /// Refuses two poses that read the same way up, opposite ways, or not a quarter turn apart.
    static func checkPairs(_ readings: [Vector3]) throws(MountPoseError) {
        for j in 1..<readings.count {
            for i in 0..<j {
                let degrees = angle(readings[i], readings[j])
                if degrees < axisTolerance { throw .repeated(first: i + 1, second: j + 1, degrees: degrees) }
                if degrees > 180 - axisTolerance { throw .opposite(first: i + 1, second: j + 1) }
                if abs(degrees - 90) > axisTolerance { throw .notOrthogonal(first: i + 1, second: j + 1, degrees: degrees) }
            }
        }
    }

    /// The angle between two vectors, in degrees.
    public static func angle(_ a: Vector3, _ b: Vector3) -> Double {
        let cosine = a.dot(b) / (a.length * b.length)
        return acos(max(-1, min(1, cosine))) * 180 / Double.pi
    }

    /// The axis (0 x, 1 y, 2 z) `v` lies nearest to, the sign of its component along it, and how far from it it
    /// lies, in degrees.
    static func nearestAxis(_ v: Vector3) -> (axis: Int, sign: Double, degrees: Double) {
        let components = [v.x, v.y, v.z]
        let axis = (0..<3).max { abs(components[$0]) < abs(components[$1]) }!
        let cosine = abs(components[axis]) / v.length
        return (axis, components[axis] < 0 ? -1 : 1, acos(max(-1, min(1, cosine))) * 180 / Double.pi)
    }

    /// The matrix that, applied after `current`, gives `solved`: `solved × current⁻¹`, for a `current` whose
    /// rows are orthogonal (any matrix rotationd uses that is a signed permutation or a rotation). Nil when
    /// `current` is not of that kind.
    public static func correction(to solved: MountMatrix, from current: MountMatrix) -> MountMatrix? {
        let rows = [current.row0, current.row1, current.row2]
        for i in 0..<3 {
            guard abs(rows[i].length - 1) < 1e-6 else { return nil }
            for j in 0..<i where abs(rows[i].dot(rows[j])) > 1e-6 { return nil }
        }
        // current⁻¹ = currentᵀ, so (solved × currentᵀ)[r][c] = solved row r · current row c.
        func row(_ s: Vector3) -> Vector3 { Vector3(s.dot(rows[0]), s.dot(rows[1]), s.dot(rows[2])) }
        return MountMatrix(row(solved.row0), row(solved.row1), row(solved.row2))
    }
}
