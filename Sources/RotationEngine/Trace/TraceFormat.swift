/// What is wrong with one line of a trace, and where.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number in the file.
    public var line: Int
    /// What is wrong with it, and what was expected.
    public var reason: String

    /// Creates a trace error.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// "line N: reason".
    public var description: String { "line \(line): \(reason)" }
}

/// The shared trace format: a header `t,x,y,z` or `t,x,y,z,gx,gy,gz`, then one sample per line.
///
/// `t` is in seconds, `x,y,z` in m/s² and `gx,gy,gz` in rad/s, all in the device frame. Under the gyroscope
/// header, a sample whose three gyroscope fields are all empty has no gyroscope reading.
public enum TraceFormat {
    /// The header of a trace without a gyroscope.
    public static let accelHeader = "t,x,y,z"
    /// The header of a trace with a gyroscope.
    public static let fusedHeader = "t,x,y,z,gx,gy,gz"

    private static let fieldNames = ["t", "x", "y", "z", "gx", "gy", "gz"]

    /// Parses a whole trace, or throws the first problem found; never returns part of a file.
    ///
    /// Times must not run backwards. Every value must be a finite number, except that the three gyroscope
    /// fields may all be empty together (no reading for that sample). Blank lines are skipped, and a
    /// trailing carriage return is accepted.
    public static func parse(_ text: String) throws(TraceError) -> [Sample] {
        var samples: [Sample] = []
        var columns = 0
        var lineNumber = 0
        var lastTime = -Double.infinity
        // One buffer for the values of every line.
        var v = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        // Split on the "\n" scalar: as a Character, a CRLF pair is one grapheme that "\n" never matches.
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var scalars = raw
            if scalars.last == "\r" { scalars = scalars.dropLast() }
            if scalars.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if columns == 0 {
                let header = Substring(scalars).filter { $0 != " " }
                if header == accelHeader { columns = 4 }
                else if header == fusedHeader { columns = 7 }
                else {
                    throw TraceError(line: lineNumber,
                                     reason: "header is \"\(Substring(scalars).prefix(60))\"; expected \"\(accelHeader)\" or \"\(fusedHeader)\"")
                }
                continue
            }
            var count = 1
            for c in scalars where c == "," { count += 1 }
            guard count == columns else {
                throw TraceError(line: lineNumber, reason: "has \(count) fields; the header promises \(columns)")
            }
            var emptyGyro = 0
            var index = 0
            var start = scalars.startIndex
            while index < columns {
                let end = scalars[start...].firstIndex(of: ",") ?? scalars.endIndex
                let f = Substring(scalars[start..<end]).trimmingSpaces
                var d = 0.0
                if f.isEmpty && index >= 4 {
                    emptyGyro += 1
                } else if let parsed = Double(f), parsed.isFinite {
                    d = parsed
                } else {
                    throw TraceError(line: lineNumber, reason: "field \(fieldNames[index]) is \"\(f.prefix(40))\", not a finite number")
                }
                switch index {
                case 0: v.0 = d
                case 1: v.1 = d
                case 2: v.2 = d
                case 3: v.3 = d
                case 4: v.4 = d
                case 5: v.5 = d
                default: v.6 = d
                }
                index += 1
                if end < scalars.endIndex { start = scalars.index(after: end) }
            }
            if emptyGyro != 0 && emptyGyro != 3 {
                throw TraceError(line: lineNumber, reason: "gx, gy, gz must be three numbers, or all three empty for a sample without a gyroscope reading")
            }
            guard v.0 >= lastTime else {
                throw TraceError(line: lineNumber, reason: "time \(v.0) runs backwards (previous \(lastTime))")
            }
            lastTime = v.0
            let gyro = columns == 7 && emptyGyro == 0 ? Vector3(v.4, v.5, v.6) : nil
            samples.append(Sample(time: v.0, acceleration: Vector3(v.1, v.2, v.3), angularVelocity: gyro))
        }
        if columns == 0 {
            throw TraceError(line: max(lineNumber, 1), reason: "no header; expected \"\(accelHeader)\" or \"\(fusedHeader)\"")
        }
        return samples
    }

    /// The header line for a recording, with or without the gyroscope columns.
    public static func header(withGyro: Bool) -> String { withGyro ? fusedHeader : accelHeader }

    /// One sample as a trace line (no newline). Gyroscope columns are written when `withGyro` is set; a
    /// sample without a gyroscope reading then gets three empty fields.
    public static func line(for s: Sample, withGyro: Bool) -> String {
        var out = JSONWriter.format(s.time, decimals: 6)
        out += "," + JSONWriter.format(s.acceleration.x, decimals: 6)
        out += "," + JSONWriter.format(s.acceleration.y, decimals: 6)
        out += "," + JSONWriter.format(s.acceleration.z, decimals: 6)
        if withGyro {
            if let g = s.angularVelocity {
                out += "," + JSONWriter.format(g.x, decimals: 6)
                out += "," + JSONWriter.format(g.y, decimals: 6)
                out += "," + JSONWriter.format(g.z, decimals: 6)
            } else {
                out += ",,,"
            }
        }
        return out
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
