import RotationProtocol

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

/// The shared trace format: a header that starts `t,x,y,z`, then one sample per line.
///
/// `t` is in seconds, `x,y,z` in m/s² in the device frame. After them the header may name, each once and in any
/// order, the optional column groups of `TraceColumns`: a gyroscope (`gx,gy,gz`, rad/s), a convertible's base
/// accelerometer (`bx,by,bz`, m/s² in the base's frame), a hinge sensor (`hinge`, degrees) and the kernel's
/// switches (`tablet_mode`, `lid_closed`, 0 or 1). A sample whose fields of one group are all empty has no
/// reading of that kind. `Docs/trace-format.md` gives the details.
public enum TraceFormat {
    /// The header of a trace without a gyroscope.
    public static let accelHeader = "t,x,y,z"
    /// The header of a trace with a gyroscope.
    public static let fusedHeader = "t,x,y,z,gx,gy,gz"

    /// Parses a whole trace, or throws the first problem found; never returns part of a file.
    ///
    /// Times must not run backwards. Every value must be a finite number, except that the fields of an optional
    /// group may all be empty together (no reading of that kind for that sample); a switch reads 0 or 1. Blank
    /// lines are skipped, and a trailing carriage return is accepted.
    public static func parse(_ text: String) throws(TraceError) -> [Sample] {
        var samples: [Sample] = []
        var layout: [TraceColumns.Group]?
        var columns = 0
        var lineNumber = 0
        var lastTime = -Double.infinity
        var values: [Double?] = []
        // Split on the "\n" scalar: as a Character, a CRLF pair is one grapheme that "\n" never matches.
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var scalars = raw
            if scalars.last == "\r" { scalars = scalars.dropLast() }
            if scalars.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard let groups = layout else {
                let header = Substring(scalars).filter { $0 != " " }
                guard let parsed = TraceColumns.groups(inHeader: header) else {
                    throw TraceError(line: lineNumber, reason: "header is \"\(Substring(scalars).prefix(60))\"; expected \"\(accelHeader)\" "
                                     + "or \"\(fusedHeader)\", optionally followed by \(TraceColumns.optionalNames)")
                }
                layout = parsed
                columns = 4 + parsed.reduce(0) { $0 + $1.names.count }
                values = Array(repeating: nil, count: columns)
                continue
            }
            try readFields(scalars, into: &values, groups: groups, line: lineNumber)
            guard let t = values[0], t >= lastTime else {
                throw TraceError(line: lineNumber, reason: "time \(values[0] ?? .nan) runs backwards (previous \(lastTime))")
            }
            lastTime = t
            samples.append(try sample(values, groups: groups, line: lineNumber))
        }
        if layout == nil {
            throw TraceError(line: max(lineNumber, 1), reason: "no header; expected \"\(accelHeader)\" or \"\(fusedHeader)\"")
        }
        return samples
    }

    /// Reads one line's fields into `values`: a number, or nil for an empty field of an optional group.
    private static func readFields(_ scalars: Substring.UnicodeScalarView.SubSequence, into values: inout [Double?],
                                   groups: [TraceColumns.Group], line: Int) throws(TraceError) {
        let columns = values.count
        var count = 1
        for c in scalars where c == "," { count += 1 }
        guard count == columns else {
            throw TraceError(line: line, reason: "has \(count) fields; the header promises \(columns)")
        }
        var index = 0
        var start = scalars.startIndex
        while index < columns {
            let end = scalars[start...].firstIndex(of: ",") ?? scalars.endIndex
            let f = Substring(scalars[start..<end]).trimmingSpaces
            if f.isEmpty && index >= 4 {
                values[index] = nil
            } else if let parsed = Double(f), parsed.isFinite {
                values[index] = parsed
            } else {
                throw TraceError(line: line, reason: "field \(name(ofColumn: index, groups)) is \"\(f.prefix(40))\", not a finite number")
            }
            index += 1
            if end < scalars.endIndex { start = scalars.index(after: end) }
        }
    }

    private static func name(ofColumn index: Int, _ groups: [TraceColumns.Group]) -> String {
        if index < 4 { return ["t", "x", "y", "z"][index] }
        var i = 4
        for g in groups {
            if index < i + g.names.count { return g.names[index - i] }
            i += g.names.count
        }
        return "\(index + 1)"
    }

    /// Builds the sample of one parsed line, checking that each group is whole or empty.
    private static func sample(_ v: [Double?], groups: [TraceColumns.Group], line: Int) throws(TraceError) -> Sample {
        var s = Sample(time: v[0]!, acceleration: Vector3(v[1]!, v[2]!, v[3]!))
        var i = 4
        for g in groups {
            let fields = v[i..<(i + g.names.count)]
            i += g.names.count
            let empty = fields.filter { $0 == nil }.count
            if empty == fields.count { continue }
            guard empty == 0 else {
                let names = g.names.joined(separator: ", ")
                throw TraceError(line: line, reason: "\(names) must be three numbers, or all three empty for a sample without a \(g.reading) reading")
            }
            let f = fields.map { $0! }
            switch g {
            case .gyro: s.angularVelocity = Vector3(f[0], f[1], f[2])
            case .base: s.base = Vector3(f[0], f[1], f[2])
            case .hinge: s.hinge = f[0]
            case .tabletMode, .lidClosed:
                guard f[0] == 0 || f[0] == 1 else {
                    throw TraceError(line: line, reason: "field \(g.names[0]) is \(f[0]); a switch reads 0 or 1, or is empty")
                }
                if g == .tabletMode { s.tabletMode = f[0] == 1 } else { s.lidClosed = f[0] == 1 }
            }
        }
        return s
    }

    /// The header line for a recording with the given optional columns.
    public static func header(_ columns: TraceColumns) -> String {
        ([accelHeader] + columns.groups.map { $0.names.joined(separator: ",") }).joined(separator: ",")
    }

    /// One sample as a trace line (no newline) with the given optional columns; a group the sample has no
    /// reading for gets empty fields.
    public static func line(for s: Sample, columns: TraceColumns) -> String {
        var out = JSONWriter.format(s.time, decimals: 6)
        func add(_ v: Double?) { out += "," + (v.map { JSONWriter.format($0, decimals: 6) } ?? "") }
        func add(_ v: Vector3?) { add(v?.x); add(v?.y); add(v?.z) }
        add(s.acceleration)
        for g in columns.groups {
            switch g {
            case .gyro: add(s.angularVelocity)
            case .base: add(s.base)
            case .hinge: add(s.hinge)
            case .tabletMode: add(s.tabletMode.map { $0 ? 1 : 0 })
            case .lidClosed: add(s.lidClosed.map { $0 ? 1 : 0 })
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
