import FuzzSupport
import RotationProtocol

/// Fuzzes `ClientCommand.parse`, which reads every line a local client sends to the service.
///
/// Checks: parsing never traps; a command parsed, written back out as the service's client library writes it,
/// parses to the same command; a refusal is an `error` message a client can decode, with the same code and
/// text.
@main
enum ClientCommandFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        switch ClientCommand.parse(bytes) {
        case .success(let command):
            guard case .success(let again) = ClientCommand.parse(command.jsonLine), again == command else {
                fatalError("\(command) does not survive \(command.jsonLine)")
            }
        case .failure(let refusal):
            let line = refusal.jsonLine
            precondition(line.utf8.count <= ClientCommand.maxLineBytes, "the refusal is longer than a line: \(line)")
            guard case .error(let decoded) = ServerMessage.decode(line) else { fatalError("undecodable refusal: \(line)") }
            precondition(decoded == refusal, "\(line) decodes to \(decoded), not \(refusal)")
        }
    }
}
