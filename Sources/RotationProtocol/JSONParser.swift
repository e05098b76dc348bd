/// Why a line is not valid JSON, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset into the input where the problem was found.
    public var offset: Int
    /// What was wrong.
    public var reason: String

    /// Creates a parse error.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "at byte N: reason".
    public var description: String { "at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser for single protocol lines, written for hostile input.
///
/// It never recurses deeper than `maxDepth`, rejects invalid UTF-8, unpaired surrogates, control
/// characters in strings, leading zeros and trailing garbage, and it does no work beyond one pass over the
/// bytes. Surrounding spaces, tabs and a trailing carriage return are allowed.
public struct JSONParser {
    /// How deeply arrays and objects may nest.
    public static let maxDepth = 16

    private let bytes: [UInt8]
    private var i = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a whole document from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.bytes.count else { throw p.fail("unexpected text after the value") }
        return v
    }

    /// Parses a whole document from a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private mutating func expect(_ word: String) throws(JSONParseError) {
        for b in word.utf8 {
            guard peek == b else { throw fail("expected \"\(word)\"") }
            i += 1
        }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let c = peek else { throw fail("unexpected end of input") }
        switch c {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONParser.maxDepth else { throw fail("nested deeper than \(JSONParser.maxDepth) levels") }
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        skipSpace()
        if peek == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let k = try string()
            skipSpace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            i += 1
            skipSpace()
            let v = try value(depth: depth)
            members.append((k, v))
            skipSpace()
            if peek == UInt8(ascii: ",") { i += 1; continue }
            if peek == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw fail("expected ',' or '}' in an object")
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONParser.maxDepth else { throw fail("nested deeper than \(JSONParser.maxDepth) levels") }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            if peek == UInt8(ascii: ",") { i += 1; continue }
            if peek == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    private mutating func number() throws(JSONParseError) -> Double {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        guard let first = peek, isDigit(first) else { throw fail("expected a digit") }
        if first == UInt8(ascii: "0") {
            i += 1
            if let d = peek, isDigit(d) { throw fail("leading zeros are not allowed") }
        } else {
            while let d = peek, isDigit(d) { i += 1 }
        }
        if peek == UInt8(ascii: ".") {
            i += 1
            guard let d = peek, isDigit(d) else { throw fail("expected a digit after '.'") }
            while let d = peek, isDigit(d) { i += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard let d = peek, isDigit(d) else { throw fail("expected a digit in the exponent") }
            while let d = peek, isDigit(d) { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else { throw JSONParseError(offset: start, reason: "number out of range") }
        return v
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    private mutating func string() throws(JSONParseError) -> String {
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let b = peek else { throw fail("unterminated string") }
            if b == UInt8(ascii: "\"") { i += 1; return String(out) }
            if b < 0x20 { throw fail("control character in a string") }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard let e = peek else { throw fail("unterminated escape") }
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{08}")
                case UInt8(ascii: "f"): out.append("\u{0C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if code >= 0xD800 && code < 0xDC00 {
                        guard peek == UInt8(ascii: "\\"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if code >= 0xDC00 && code < 0xE000 {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    guard let s = Unicode.Scalar(code) else { throw fail("invalid code point") }
                    out.append(s)
                default: throw fail("unknown escape")
                }
                continue
            }
            if b < 0x80 { out.append(Unicode.Scalar(b)); i += 1; continue }
            out.append(try utf8Scalar())
        }
    }

    /// Decodes one multi-byte UTF-8 sequence, rejecting overlong forms, surrogates and truncation.
    private mutating func utf8Scalar() throws(JSONParseError) -> Unicode.Scalar {
        let b0 = bytes[i]
        let count: Int, minimum: UInt32
        var code: UInt32
        switch b0 {
        case 0xC2...0xDF: count = 2; minimum = 0x80; code = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: count = 3; minimum = 0x800; code = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: count = 4; minimum = 0x10000; code = UInt32(b0 & 0x07)
        default: throw fail("invalid UTF-8")
        }
        guard i + count <= bytes.count else { throw fail("truncated UTF-8") }
        for k in 1..<count {
            let b = bytes[i + k]
            guard b & 0xC0 == 0x80 else { throw fail("invalid UTF-8") }
            code = code << 6 | UInt32(b & 0x3F)
        }
        guard code >= minimum, let s = Unicode.Scalar(code) else { throw fail("invalid UTF-8") }
        i += count
        return s
    }
}
