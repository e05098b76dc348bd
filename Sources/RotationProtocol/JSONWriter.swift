/// Builds one JSON object as a single line of text, without Foundation.
///
/// Keys are written in the order they are added. Strings are escaped per RFC 8259; numbers that are not
/// finite are written as `null`, since JSON has no spelling for them.
public struct JSONWriter: Sendable {
    private var text = "{"
    private var first = true

    /// Starts an empty object.
    public init() {}

    private mutating func key(_ k: String) {
        if !first { text += "," }
        first = false
        JSONWriter.appendString(k, to: &text)
        text += ":"
    }

    /// Adds a string member, or `null` when `value` is nil.
    public mutating func add(_ k: String, _ value: String?) {
        key(k)
        if let value { JSONWriter.appendString(value, to: &text) } else { text += "null" }
    }

    /// Adds an integer member, or `null` when `value` is nil.
    public mutating func add(_ k: String, _ value: Int?) {
        key(k)
        if let value { text += String(value) } else { text += "null" }
    }

    /// Adds a number member with at most `decimals` digits after the point.
    public mutating func add(_ k: String, _ value: Double, decimals: Int = 4) {
        key(k)
        text += JSONWriter.format(value, decimals: decimals)
    }

    /// Adds a boolean member.
    public mutating func add(_ k: String, _ value: Bool) {
        key(k)
        text += value ? "true" : "false"
    }

    /// Adds a member whose value is already-encoded JSON (an object or array).
    public mutating func addRaw(_ k: String, _ json: String) {
        key(k)
        text += json
    }

    /// The finished object, without a trailing newline.
    public var object: String { text + "}" }

    /// Appends `s` as a quoted JSON string.
    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    /// Formats a number with at most `decimals` digits after the point and no exponent; `null` if not finite.
    public static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else { return String(value) }
        let n = Int64(scaled)
        let whole = n / Int64(scale)
        var frac = n % Int64(scale)
        var digits = decimals
        while digits > 0 && frac % 10 == 0 { frac /= 10; digits -= 1 }
        var s = (value < 0 && n != 0) ? "-" : ""
        s += String(whole)
        if digits > 0 {
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }
}
