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
/// `t` is in seconds, `x,y,z` in m/s² and `gx,gy,gz` in rad/s, all in the device frame.
public enum TraceFormat {
    /// The header of a trace without a gyroscope.
    public static let accelHeader = "t,x,y,z"
    /// The header of a trace with a gyroscope.
    public static let fusedHeader = "t,x,y,z,gx,gy,gz"

    /// Parses a whole trace, or throws the first problem found; never returns part of a file.
    ///
    /// Times must not run backwards. Every value must be a finite number. Blank lines are skipped, and a
    /// trailing carriage return is accepted.
    public static func parse(_ text: String) throws(TraceError) -> [Sample] {
        var samples: [Sample] = []
        var columns = 0
        var lineNumber = 0
        var lastTime = -Double.infinity
        // Split on the "\n" scalar: as a Character, a CRLF pair is one grapheme that "\n" never matches.
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var scalars = raw
            if scalars.last == "\r" { scalars = scalars.dropLast() }
            let line = Substring(scalars)
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if columns == 0 {
                let header = line.filter { $0 != " " }
                if header == accelHeader { columns = 4 }
                else if header == fusedHeader { columns = 7 }
                else {
                    throw TraceError(line: lineNumber,
                                     reason: "header is \"\(line.prefix(60))\"; expected \"\(accelHeader)\" or \"\(fusedHeader)\"")
                }
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == columns else {
                throw TraceError(line: lineNumber, reason: "has \(fields.count) fields; the header promises \(columns)")
            }
            var v = [Double](repeating: 0, count: columns)
            for i in 0..<columns {
                let f = fields[i].trimmingSpaces
                guard let d = Double(f), d.isFinite else {
                    let name = ["t", "x", "y", "z", "gx", "gy", "gz"][i]
                    throw TraceError(line: lineNumber, reason: "field \(name) is \"\(f.prefix(40))\", not a finite number")
                }
                v[i] = d
            }
            guard v[0] >= lastTime else {
                throw TraceError(line: lineNumber, reason: "time \(v[0]) runs backwards (previous \(lastTime))")
            }
            lastTime = v[0]
            let gyro = columns == 7 ? Vector3(v[4], v[5], v[6]) : nil
            samples.append(Sample(time: v[0], acceleration: Vector3(v[1], v[2], v[3]), angularVelocity: gyro))
        }
        if columns == 0 {
            throw TraceError(line: max(lineNumber, 1), reason: "no header; expected \"\(accelHeader)\" or \"\(fusedHeader)\"")
        }
        return samples
    }

    /// The header line for a recording, with or without the gyroscope columns.
    public static func header(withGyro: Bool) -> String { withGyro ? fusedHeader : accelHeader }

    /// One sample as a trace line (no newline). Gyroscope columns are written when `withGyro` is set;
    /// a sample without a gyroscope reading then gets zeros.
    public static func line(for s: Sample, withGyro: Bool) -> String {
        var out = JSONWriter.format(s.time, decimals: 6)
        for v in [s.acceleration.x, s.acceleration.y, s.acceleration.z] {
            out += "," + JSONWriter.format(v, decimals: 6)
        }
        if withGyro {
            let g = s.angularVelocity ?? .zero
            for v in [g.x, g.y, g.z] { out += "," + JSONWriter.format(v, decimals: 6) }
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
