import Glibc
import RotationSystem

/// Reads one number attribute (such as `in_accel_x_raw`) with three system calls and no allocation on the good
/// path: the polled capture's inner loop.
///
/// The kernel writes a raw count as an integer, but some drivers (and test beds) write a decimal fraction such
/// as `-25.6`; other readers of `_raw` take it as the number it is, and so does this one.
package enum SysfsNumber {
    /// Why a read gave no number.
    package enum Failure: Error {
        /// open or read failed with this error number.
        case system(Errno)
        /// The file held this text, which is not a decimal number within ±2³¹.
        case garbage(String)
    }

    /// The largest magnitude accepted: a raw count fits in 32 bits.
    package static let limit: Double = 2_147_483_648

    static func read(_ path: String) -> Result<Double, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(.current)) }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> Result<Double, Failure> in
            var n = 0
            while true {
                n = Glibc.read(fd, buf.baseAddress, buf.count)
                if n < 0 && errno == EINTR { continue }
                break
            }
            if n < 0 { return .failure(.system(.current)) }
            return parse(UnsafeBufferPointer(rebasing: buf[0..<n]))
        }
    }

    /// Parses optional blanks, an optional sign, decimal digits with an optional fraction (`12`, `-25.6`, `.5`,
    /// `3.`), an optional exponent (`e-3`), and optional trailing blanks or a newline.
    ///
    /// The decimal separator is always `.`, whatever the C locale says. Infinities, NaN, hexadecimal and a
    /// magnitude beyond 2³¹ are garbage.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Double, Failure> {
        var i = 0, end = bytes.count
        func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0 }
        func digit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while i < end && blank(bytes[i]) { i += 1 }
        while end > i && blank(bytes[end - 1]) { end -= 1 }
        var negative = false
        if i < end && (bytes[i] == 0x2D || bytes[i] == 0x2B) {
            negative = bytes[i] == 0x2D
            i += 1
        }
        // The significant digits as an integer times a power of ten. Digits beyond 10¹⁵ add nothing a Double
        // could hold; they only move the power.
        var mantissa: Int64 = 0
        var power = 0
        var digits = 0
        while i < end, digit(bytes[i]) {
            if mantissa < 1_000_000_000_000_000 {
                mantissa = mantissa * 10 + Int64(bytes[i] - 0x30)
            } else {
                power += 1
            }
            digits += 1
            i += 1
        }
        if i < end && bytes[i] == 0x2E {
            i += 1
            while i < end, digit(bytes[i]) {
                if mantissa < 1_000_000_000_000_000 {
                    mantissa = mantissa * 10 + Int64(bytes[i] - 0x30)
                    power -= 1
                }
                digits += 1
                i += 1
            }
        }
        if digits > 0 && i < end && (bytes[i] == 0x65 || bytes[i] == 0x45) {
            i += 1
            var exponentNegative = false
            if i < end && (bytes[i] == 0x2D || bytes[i] == 0x2B) {
                exponentNegative = bytes[i] == 0x2D
                i += 1
            }
            var exponent = 0
            let exponentStart = i
            while i < end, digit(bytes[i]) {
                if exponent < 1000 { exponent = exponent * 10 + Int(bytes[i] - 0x30) }
                i += 1
            }
            if i == exponentStart { digits = 0 }
            power += exponentNegative ? -exponent : exponent
        }
        guard i == end, digits > 0 else { return .failure(.garbage(String(decoding: bytes, as: UTF8.self))) }
        let value = scaled(Double(mantissa), power)
        guard value <= limit else { return .failure(.garbage(String(decoding: bytes, as: UTF8.self))) }
        return .success(negative ? -value : value)
    }

    /// `m × 10^power`, correctly rounded for the usual case of a few fraction digits: 10ᵏ is exact for
    /// k ≤ 22, so `256 / 10` is the Double nearest 25.6. A larger power is applied in steps of at most 10²², so
    /// that a number far below 1 (`161e-313`) comes out as the tiny number it is, not as 0 for want of a 10ᵏ
    /// that a Double can hold.
    private static func scaled(_ m: Double, _ power: Int) -> Double {
        if m == 0 { return 0 }
        var value = m
        var left = min(abs(power), 400)
        while left > 0 {
            let step = min(left, 22)
            var tens = 1.0
            for _ in 0..<step { tens *= 10 }
            value = power >= 0 ? value * tens : value / tens
            left -= step
        }
        return value
    }
}
