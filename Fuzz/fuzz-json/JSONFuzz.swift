import FuzzSupport
import RotationProtocol

/// Fuzzes `JSONParser`, which reads every line a client sends and every line a client library receives.
///
/// Checks: parsing never traps; whatever parses, written back out as JSON (strings escaped by `JSONWriter`,
/// numbers in Swift's shortest round-trip form), parses again to the same value.
@main
enum JSONFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        let text = write(value)
        let again: JSONValue
        do { again = try JSONParser.parse(text) } catch {
            fatalError("\(text) does not parse again: \(error)")
        }
        precondition(again == value, "\(text) parses to another value")
    }

    /// `value` as JSON text.
    static func write(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return "\(d)"
        case .string(let s):
            var out = ""
            JSONWriter.appendString(s, to: &out)
            return out
        case .array(let items): return "[" + items.map(write).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { member -> String in
                var key = ""
                JSONWriter.appendString(member.key, to: &key)
                return key + ":" + write(member.value)
            }.joined(separator: ",") + "}"
        }
    }
}
