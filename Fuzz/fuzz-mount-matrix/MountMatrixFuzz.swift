import FuzzSupport
import RotationProtocol
import RotationSensors

/// Fuzzes `MountMatrix.parse` and `validated()`, which read the mount matrix of every sensor from sysfs
/// (`in_accel_mount_matrix`...) and from the hwdb (`ACCEL_MOUNT_MATRIX`, `ANGLVEL_MOUNT_MATRIX`).
///
/// Checks: neither traps, nor does describing a refusal; a parsed matrix written out as text parses to the
/// same matrix; a validated matrix keeps the first two rows, which are not zero, has only finite entries, and
/// turns a finite vector into a finite one when its entries are within the range a mount matrix holds.
@main
enum MountMatrixFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let matrix: MountMatrix
        do { matrix = try MountMatrix.parse(text) } catch {
            _ = error.description
            return
        }
        do {
            let again = try MountMatrix.parse(matrix.description)
            precondition(again == matrix, "\(matrix) is read back as \(again)")
        } catch { fatalError("\(matrix) does not parse again: \(error)") }
        let usable: MountMatrix
        do { usable = try matrix.validated() } catch {
            _ = error.description
            return
        }
        precondition(usable.row0 == matrix.row0 && usable.row1 == matrix.row1, "validated() changed the first rows of \(matrix)")
        precondition(usable.row0 != Vector3(0, 0, 0) && usable.row1 != Vector3(0, 0, 0), "\(usable) has a zero row")
        let used = [usable.row0, usable.row1, usable.row2].flatMap { [$0.x, $0.y, $0.z] }
        precondition(used.allSatisfy(\.isFinite), "validated() gives \(usable) for \(matrix)")
        let entries = [matrix.row0, matrix.row1, matrix.row2].flatMap { [$0.x, $0.y, $0.z] }
        if entries.allSatisfy({ abs($0) <= 1e6 }) {
            let v = usable.apply(Vector3(9.81, -0.5, 0.25))
            precondition(v.x.isFinite && v.y.isFinite && v.z.isFinite, "\(usable) gives \(v)")
        }
    }
}
