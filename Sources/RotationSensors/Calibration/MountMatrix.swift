import RotationProtocol

/// A 3×3 mount matrix that turns a sensor's axes into the device frame.
///
/// The matrix multiplies a column vector of (offset-corrected, scaled) readings: `device = M × raw`. The text
/// form is the kernel's and the systemd hwdb's: three rows separated by `;`, three numbers per row separated by
/// `,`, such as `0, -1, 0; -1, 0, 0; 0, 0, 1`.
public struct MountMatrix: Sendable, Hashable, CustomStringConvertible {
    /// The first row.
    public var row0: Vector3
    /// The second row.
    public var row1: Vector3
    /// The third row.
    public var row2: Vector3

    /// Creates a matrix from its rows.
    public init(_ row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// The identity: the sensor's axes already are the device's.
    public static let identity = MountMatrix(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// Parses `a, b, c; d, e, f; g, h, i`, ignoring spaces, tabs and a trailing newline.
    ///
    /// Numbers are read without regard to the C locale, so `0.5` parses the same everywhere. The result is
    /// not yet checked for usability; see `validated()`.
    public static func parse(_ text: String) throws(MountMatrixError) -> MountMatrix {
        let rows = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else {
            throw .malformed(text: text, reason: "has \(rows.count) rows separated by ';', expected 3")
        }
        var values: [Double] = []
        for (r, row) in rows.enumerated() {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                throw .malformed(text: text, reason: "row \(r + 1) has \(fields.count) numbers separated by ',', expected 3")
            }
            for field in fields {
                let trimmed = field.filter { $0 != " " && $0 != "\t" && $0 != "\n" && $0 != "\r" }
                guard let v = Double(trimmed), v.isFinite else {
                    throw .malformed(text: text, reason: "\"\(trimmed.prefix(20))\" in row \(r + 1) is not a finite number")
                }
                values.append(v)
            }
        }
        return MountMatrix(Vector3(values[0], values[1], values[2]),
                           Vector3(values[3], values[4], values[5]),
                           Vector3(values[6], values[7], values[8]))
    }

    /// The determinant.
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// The matrix to apply in place of this one, or why there is none.
    ///
    /// The first two rows say which sensor direction becomes the device's x and y, and so decide the
    /// rotation: each must be non-zero, and they must not be parallel. The third row only decides which way
    /// is face up. When it is zero or lies in the plane of the first two (the matrix is singular, as in the
    /// systemd hwdb entries that repeat a row), it is replaced by the cross product row 1 × row 2, scaled to
    /// the rows' mean length: for a matrix of ±1 and 0 that is the one third row that makes a rotation
    /// (determinant +1). A matrix that is usable as given, including a reflection (determinant −1), is
    /// returned unchanged.
    ///
    /// - Returns: the matrix itself, or a copy with its third row replaced; compare with `self` to tell.
    /// - Throws: `.zeroRow` for an all-zero first or second row, `.parallelRows` when those two are parallel.
    public func validated() throws(MountMatrixError) -> MountMatrix {
        for (i, row) in [row0, row1].enumerated() where row.x == 0 && row.y == 0 && row.z == 0 {
            throw .zeroRow(matrix: self, row: i + 1)
        }
        // The tests are made on the rows scaled to entries of at most 1, where no product overflows or
        // underflows: a matrix of 1e200s is as usable as one of 1s, and is judged the same.
        let (a, scaleA) = Self.unitScaled(row0), (b, scaleB) = Self.unitScaled(row1), (c, _) = Self.unitScaled(row2)
        let normal = a.cross(b)
        let plane = a.length * b.length
        if normal.length <= 1e-6 * plane { throw .parallelRows(matrix: self) }
        if abs(a.dot(b.cross(c))) > 1e-6 * plane * c.length { return self }
        let scales = scaleA * scaleB
        let meanScale = scales.isFinite && scales > 0 ? scales.squareRoot() : scaleA.squareRoot() * scaleB.squareRoot()
        let meanLength = meanScale * plane.squareRoot()
        return MountMatrix(row0, row1, normal * (meanLength / normal.length))
    }

    /// `v` divided by its largest entry's magnitude, and that magnitude (0 for a zero vector, returned as is).
    private static func unitScaled(_ v: Vector3) -> (Vector3, Double) {
        let scale = max(abs(v.x), abs(v.y), abs(v.z))
        return scale == 0 ? (v, 0) : (Vector3(v.x / scale, v.y / scale, v.z / scale), scale)
    }

    /// The matrix times the column vector `v`.
    @inlinable public func apply(_ v: Vector3) -> Vector3 {
        Vector3(row0.dot(v), row1.dot(v), row2.dot(v))
    }

    /// The text form, `a, b, c; d, e, f; g, h, i`, with whole numbers written without a fraction.
    public var description: String {
        func num(_ d: Double) -> String {
            if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
            return String(d)
        }
        return [row0, row1, row2].map { "\(num($0.x)), \(num($0.y)), \(num($0.z))" }.joined(separator: "; ")
    }
}

/// Why a mount matrix was not used.
public enum MountMatrixError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not three rows of three numbers.
    case malformed(text: String, reason: String)
    /// The first or second row is all zeros.
    case zeroRow(matrix: MountMatrix, row: Int)
    /// The first and second rows are parallel.
    case parallelRows(matrix: MountMatrix)

    /// What is wrong with the matrix and what a valid one looks like.
    public var description: String {
        switch self {
        case .malformed(let text, let reason):
            return "mount matrix \"\(text.prefix(80))\" \(reason); write it as \"a, b, c; d, e, f; g, h, i\""
        case .zeroRow(let m, let row):
            return "mount matrix \"\(m)\" has an all-zero row \(row); the device's x and y each need a sensor direction"
        case .parallelRows(let m):
            return "mount matrix \"\(m)\" has parallel rows 1 and 2; the device's x and y need two different sensor directions"
        }
    }
}
