import Foundation
import RotationEngine
import RotationProtocol
@testable import RotationSensors
import Testing

@Suite("Mount matrix parsing and calibration math")
struct MountMatrixTests {
    static let onda = "0, -1, 0; -1, 0, 0; 0, 0, 1"
    static let ondaScale = 0.019163

    /// The rotation the engine publishes after a second of the device held still at reading `a`.
    static func engineRotation(holding a: Vector3) -> Rotation? {
        var engine = OrientationEngine()
        for i in 0..<50 { _ = engine.process(Sample(time: Double(i) / 50, acceleration: a)) }
        return engine.state.rotation
    }

    @Test("the Onda v975w hwdb quirk parses row by row")
    func parsesOndaQuirk() throws {
        let m = try MountMatrix.parse(Self.onda)
        #expect(m.row0 == Vector3(0, -1, 0))
        #expect(m.row1 == Vector3(-1, 0, 0))
        #expect(m.row2 == Vector3(0, 0, 1))
        #expect(m.description == Self.onda)
    }

    @Test("spaces, tabs, a trailing newline and fractions are accepted")
    func toleratesWhitespaceAndFractions() throws {
        let m = try MountMatrix.parse("0.5,\t-0.866, 0 ;0.866 ,0.5,0; 0, 0,   1\n")
        #expect(m.row0 == Vector3(0.5, -0.866, 0))
        #expect(m.row1 == Vector3(0.866, 0.5, 0))
        #expect(m.row2.z == 1)
    }

    @Test("numbers parse with a point while LC_NUMERIC is a comma-decimal locale")
    func localeIndependent() throws {
        // A German LC_NUMERIC makes strtod read "0.5" as 0; the parser must not follow it.
        let locale = try #require(CommaDecimalLocale.make("de_DE"),
                                  "no comma-decimal locale: install the Debian package locales (scripts/install-deps.sh)")
        if let dir = locale.directory { setenv("LOCPATH", dir, 1) }
        defer {
            setlocale(LC_NUMERIC, "C")
            if locale.directory != nil { unsetenv("LOCPATH") }
            locale.remove()
        }
        try #require(setlocale(LC_NUMERIC, locale.name) != nil, "\(locale.name) made available but not loaded")
        #expect(String(cString: localeconv().pointee.decimal_point) == ",")
        #expect(strtod("0.5", nil) == 0, "the locale is in effect: the C library stops at the point")
        let m = try MountMatrix.parse("0.5, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(m.row0 == Vector3(0.5, 0, 0))
        // "0,5" splits into two fields, so the row count is wrong: the text is refused instead of guessed at.
        #expect(throws: MountMatrixError.self) { try MountMatrix.parse("0,5, 0, 0; 0, 1, 0; 0, 0, 1") }
    }

    @Test("malformed text is rejected with the reason", arguments: [
        "", "1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0", "1, 0, x; 0, 1, 0; 0, 0, 1", "1, 0, inf; 0, 1, 0; 0, 0, 1",
        "1, 0, 0; 0, 1, 0; 0, 0, 1; 0, 0, 0", "nan, 0, 0; 0, 1, 0; 0, 0, 1",
    ])
    func rejectsMalformed(text: String) {
        #expect(throws: MountMatrixError.self) { try MountMatrix.parse(text) }
    }

    @Test("an all-zero first or second row is rejected and named", arguments: [1, 2])
    func rejectsZeroRow(row: Int) throws {
        let m = try MountMatrix.parse(row == 1 ? "0, 0, 0; 0, 1, 0; 0, 0, 1" : "1, 0, 0; 0, 0, 0; 0, 0, 1")
        #expect(throws: MountMatrixError.zeroRow(matrix: m, row: row)) { try m.validated() }
        let message = "\(MountMatrixError.zeroRow(matrix: m, row: row))"
        #expect(message.contains("\(m)") && message.contains("row \(row)"))
    }

    @Test("parallel first and second rows are rejected", arguments: [
        "1, 0, 0; 1, 0, 0; 0, 0, 1", "0, 1, 0; 0, -2, 0; 0, 0, 1", "1, 1, 0; -1, -1, 0; 0, 0, 1",
    ])
    func rejectsParallelRows(text: String) throws {
        let m = try MountMatrix.parse(text)
        #expect(throws: MountMatrixError.parallelRows(matrix: m)) { try m.validated() }
    }

    @Test("a zero or dependent third row is replaced by row 1 × row 2", arguments: [
        ("1, 0, 0; 0, 1, 0; 0, 0, 0", Vector3(0, 0, 1)),
        ("0, -1, 0; -1, 0, 0; 0, 1, 0", Vector3(0, 0, -1)),
        ("1, 0, 0; 0, 0, 1; 1, 0, 1", Vector3(0, -1, 0)),
    ])
    func replacesThirdRow(text: String, expected: Vector3) throws {
        let m = try MountMatrix.parse(text)
        let used = try m.validated()
        #expect(used.row0 == m.row0 && used.row1 == m.row1 && used.row2 == expected, "\(used)")
        #expect(used.determinant == 1)
    }

    @Test("a replaced third row takes the rows' scale: a matrix scaled by k stays scaled by k")
    func replacedRowKeepsScale() throws {
        let used = try MountMatrix.parse("0, 2, 0; -2, 0, 0; 0, 0, 0").validated()
        #expect(used.row2 == Vector3(0, 0, 2), "\(used)")
        // Rows of different lengths: the new row's length is their geometric mean.
        let mixed = try MountMatrix.parse("4, 0, 0; 0, 1, 0; 4, 1, 0").validated()
        #expect(abs(mixed.row2.length - 2) < 1e-12 && mixed.row2.z > 0, "\(mixed)")
    }

    @Test("a usable matrix is returned unchanged, a reflection included", arguments: [
        "0, -1, 0; -1, 0, 0; 0, 0, 1", "1, 0, 0; 0, 1, 0; 0, 0, -1", "0.5, -0.866, 0; 0.866, 0.5, 0; 0, 0, 1", "1, 0, 0; 0, 1, 0; 0, 0, 1e-3",
    ])
    func usableUnchanged(text: String) throws {
        let m = try MountMatrix.parse(text)
        #expect(try m.validated() == m)
    }

    @Test("identity and rotation matrices validate")
    func acceptsRotations() throws {
        _ = try MountMatrix.identity.validated()
        _ = try MountMatrix.parse(Self.onda).validated()
        #expect(try MountMatrix.parse(Self.onda).determinant == -1)
    }

    @Test("Onda v975w: raw (523, 13, 5) reads upright, (0, -g, 0)")
    func ondaNormal() throws {
        let cal = SensorCalibration(scale: Vector3(Self.ondaScale, Self.ondaScale, Self.ondaScale),
                                    matrix: try MountMatrix.parse(Self.onda))
        let a = cal.apply(raw: Vector3(523, 13, 5))
        #expect(abs(a.x - (-13 * Self.ondaScale)) < 1e-9)
        #expect(abs(a.y - (-523 * Self.ondaScale)) < 1e-9)
        #expect(abs(a.z - 5 * Self.ondaScale) < 1e-9)
        #expect(Self.engineRotation(holding: a) == .normal)
    }

    @Test("Onda v975w: raw (8, 521, -67) reads right edge up, (-g, 0, 0)")
    func ondaRightUp() throws {
        let cal = SensorCalibration(scale: Vector3(Self.ondaScale, Self.ondaScale, Self.ondaScale),
                                    matrix: try MountMatrix.parse(Self.onda))
        let a = cal.apply(raw: Vector3(8, 521, -67))
        #expect(abs(a.x - (-521 * Self.ondaScale)) < 1e-9)
        #expect(abs(a.y - (-8 * Self.ondaScale)) < 1e-9)
        #expect(Self.engineRotation(holding: a) == .rightUp)
    }

    @Test("the offset is added to the raw count before the scale, per axis, then the matrix applies")
    func offsetBeforeScale() throws {
        let cal = SensorCalibration(scale: Vector3(0.01, 0.02, 0.5), offset: Vector3(-2000, 10, 0),
                                    matrix: try MountMatrix.parse("0, 1, 0; 1, 0, 0; 0, 0, -1"))
        let a = cal.apply(raw: Vector3(2100, -500, 4))
        // Scaled: ((2100 − 2000)·0.01, (−500 + 10)·0.02, 4·0.5) = (1, −9.8, 2); then x↔y and z negated.
        #expect(abs(a.x - (-9.8)) < 1e-9)
        #expect(abs(a.y - 1) < 1e-9)
        #expect(abs(a.z - (-2)) < 1e-9)
    }
}

@Suite("Raw sysfs numbers")
struct SysfsNumberTests {
    static func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buf in
            if case .success(let v) = SysfsNumber.parse(UnsafeBufferPointer(buf)) { return v }
            return nil
        }
    }

    @Test("counts with a sign, blanks and the kernel's newline parse")
    func parsesCounts() {
        #expect(Self.parse("523\n") == 523)
        #expect(Self.parse("-67\n") == -67)
        #expect(Self.parse(" +12 ") == 12)
        #expect(Self.parse("2147483648\n") == 2_147_483_648)
        #expect(Self.parse("-256000000\n") == -256_000_000)
    }

    @Test("a value with a fractional part is the number it says, not garbage")
    func parsesFractions() {
        #expect(Self.parse("-25.6\n") == -25.6)
        #expect(Self.parse("1.5\n") == 1.5)
        #expect(Self.parse("0.000010\n") == 0.00001)
        #expect(Self.parse(".5") == 0.5)
        #expect(Self.parse("-3.\n") == -3)
        #expect(Self.parse("2.5e2\n") == 250)
        #expect(Self.parse("-1E-3") == -0.001)
        // More digits than a Double holds: the extra ones only move the decimal point.
        #expect(abs((Self.parse("12345678901234567.5e-10") ?? 0) - 1_234_567.890_123_456_7) < 1e-6)
    }

    @Test("empty, non-numeric and out-of-range values are garbage", arguments: [
        "", "\n", "abc\n", "12a", "-", ".", "1.2.3", "1,5\n", "e5", "1e", "0x10", "inf", "nan",
        "99999999999999999999\n", "2147483649", "2147483648.5", "3e9", "1 2",
    ])
    func rejectsGarbage(text: String) {
        #expect(Self.parse(text) == nil)
    }
}
