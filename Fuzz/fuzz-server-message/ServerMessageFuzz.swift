import FuzzSupport
import RotationProtocol

/// Fuzzes `ServerMessage.decode`, which `RotationClient` and `rotwatch` use on every line the service sends.
///
/// Checks: decoding never traps; a decoded message, written out again as the service writes it, decodes to a
/// message of the same kind.
@main
enum ServerMessageFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        guard let message = ServerMessage.decode(String(decoding: bytes, as: UTF8.self)) else { return }
        let line = message.jsonLine
        guard let again = ServerMessage.decode(line) else { fatalError("\(line) does not decode again") }
        precondition(kind(again) == kind(message), "\(line) decodes to \(again)")
    }

    static func kind(_ m: ServerMessage) -> String {
        switch m {
        case .hello: return "hello"
        case .state: return "state"
        case .sample: return "sample"
        case .subscribed: return "subscribed"
        case .error: return "error"
        }
    }
}
