import FuzzSupport
import RotationSensors

/// Fuzzes `SysfsNumber.parse`, which reads every raw value a polled sensor's attributes hold.
///
/// Checks: parsing never traps; it accepts exactly the decimal numbers its documentation names (blanks around,
/// an optional sign, digits with an optional fraction, an optional exponent) within ±2³¹, and reads each as
/// the number the standard library reads, to 14 significant digits (and to within 2⁻¹⁰⁶³, about 10⁻³²⁰, among
/// the subnormal numbers, whose precision is less).
@main
enum SysfsNumberFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        let result = bytes.withUnsafeBufferPointer { SysfsNumber.parse($0) }
        let expected = reference(bytes).flatMap { abs($0) <= SysfsNumber.limit ? $0 : nil }
        switch (result, expected) {
        case (.success(let v), .some(let e)):
            precondition(v.isFinite && abs(v - e) <= 1e-14 * abs(e) + 0x1p-1063, "\(text(bytes)): read \(v), expected \(e)")
        case (.success(let v), .none):
            fatalError("\(text(bytes)) is not a number within ±2³¹, yet read as \(v)")
        case (.failure, .some(let e)):
            fatalError("\(text(bytes)) is \(e), yet refused")
        case (.failure, .none):
            break
        }
    }

    /// The number the documented syntax gives for `bytes`, read by the standard library; nil when the text
    /// does not follow it.
    static func reference(_ bytes: [UInt8]) -> Double? {
        func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0 }
        func digit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        var body = ArraySlice(bytes)
        while let c = body.first, blank(c) { body = body.dropFirst() }
        while let c = body.last, blank(c) { body = body.dropLast() }
        var i = body.startIndex
        if i < body.endIndex, body[i] == 0x2B || body[i] == 0x2D { i += 1 }
        var digits = 0
        while i < body.endIndex, digit(body[i]) { i += 1; digits += 1 }
        if i < body.endIndex, body[i] == 0x2E {
            i += 1
            while i < body.endIndex, digit(body[i]) { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < body.endIndex, body[i] == 0x65 || body[i] == 0x45 {
            i += 1
            if i < body.endIndex, body[i] == 0x2B || body[i] == 0x2D { i += 1 }
            let start = i
            while i < body.endIndex, digit(body[i]) { i += 1 }
            guard i > start else { return nil }
        }
        guard i == body.endIndex else { return nil }
        return Double(String(decoding: body, as: UTF8.self))
    }

    static func text(_ bytes: [UInt8]) -> String { "\"\(String(decoding: bytes.prefix(80), as: UTF8.self))\"" }
}
