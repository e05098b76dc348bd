import Glibc

/// Reads one integer sysfs attribute (such as `in_accel_x_raw`) with three system calls and no allocation
/// on the good path: the polled capture's inner loop.
enum SysfsInteger {
    /// Why a read gave no number.
    enum Failure: Error {
        /// open or read failed with this errno.
        case system(Int32)
        /// The file held this text, which is not an integer within ±2³¹.
        case garbage(String)
    }

    static func read(_ path: String) -> Result<Int64, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> Result<Int64, Failure> in
            var n = 0
            while true {
                n = Glibc.read(fd, buf.baseAddress, buf.count)
                if n < 0 && errno == EINTR { continue }
                break
            }
            if n < 0 { return .failure(.system(errno)) }
            return parse(UnsafeBufferPointer(rebasing: buf[0..<n]))
        }
    }

    /// Parses optional blanks, an optional sign, decimal digits and optional trailing blanks or a newline.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Int64, Failure> {
        var i = 0, end = bytes.count
        func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0 }
        while i < end && blank(bytes[i]) { i += 1 }
        while end > i && blank(bytes[end - 1]) { end -= 1 }
        var negative = false
        if i < end && (bytes[i] == 0x2D || bytes[i] == 0x2B) {
            negative = bytes[i] == 0x2D
            i += 1
        }
        var value: Int64 = 0
        let digitsStart = i
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39, value <= 1 << 31 {
            value = value * 10 + Int64(bytes[i] - 0x30)
            i += 1
        }
        guard i == end, i > digitsStart, value <= 1 << 31 else {
            return .failure(.garbage(String(decoding: bytes, as: UTF8.self)))
        }
        return .success(negative ? -value : value)
    }
}
