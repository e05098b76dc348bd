import Foundation
import RotationProtocol
@testable import RotationSensors
import Testing

/// Inputs the fuzz targets' checks caught (Docs/fuzzing.md), each kept as the behaviour it should have been.
/// The inputs themselves are in Fuzz/corpus, which the fuzz corpus tests replay too.
@Suite("Fuzz findings: sysfs numbers and mount matrices")
struct FuzzFindingTests {
    static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard case .success(let v) = bytes.withUnsafeBufferPointer({ SysfsNumber.parse($0) }) else { return nil }
        return v
    }

    @Test("a raw value far below 1, such as 161e-313, is read as the tiny number it is, not as 0")
    func tinyRawValue() throws {
        let v = try #require(Self.parse("161e-313\n"))
        #expect(v > 0 && abs(v - Double("1.61e-311")!) <= 0x1p-1063, "\(v)")
        #expect(Self.parse("-1e-320") == -Double("1e-320")!)
        #expect(Self.parse("1e-400") == 0)
        // The usual values keep their exact reading.
        #expect(Self.parse("-25.6") == -25.6 && Self.parse("0.019163\n") == 0.019163 && Self.parse("12e-23") == 12e-23)
    }

    @Test("a mount matrix of huge parallel rows is refused as parallel; it used to yield a third row of NaN")
    func hugeParallelRows() throws {
        let m = try MountMatrix.parse("0, 1e200, 1e200; 0, 1e200, 1e200; 0, 0, 1")
        #expect(throws: MountMatrixError.parallelRows(matrix: m)) { try m.validated() }
    }

    @Test("a mount matrix is judged the same whatever its scale: huge and tiny rows are as usable as rows of 1")
    func scaleInvariance() throws {
        for k in [1.0, 1e200, 1e-200, 1e300] {
            let m = MountMatrix(Vector3(0, -k, 0), Vector3(-k, 0, 0), Vector3(0, 0, 0))
            let used = try m.validated()
            #expect(used.row0 == m.row0 && used.row1 == m.row1, "\(k)")
            #expect(abs(used.row2.z + k) <= 1e-12 * k && used.row2.x == 0 && used.row2.y == 0, "\(k): \(used)")
            let reflection = MountMatrix(Vector3(k, 0, 0), Vector3(0, k, 0), Vector3(0, 0, -k))
            #expect(try reflection.validated() == reflection, "\(k)")
        }
    }
}
