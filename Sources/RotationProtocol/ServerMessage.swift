/// Any line the service sends, decoded.
public enum ServerMessage: Sendable, Hashable {
    /// The greeting.
    case hello(Hello)
    /// A state change, or the current state on request.
    case state(StateEvent)
    /// A raw sample.
    case sample(SampleMessage)
    /// The reply to `subscribe`.
    case subscribed(SubscribedMessage)
    /// A refused command or a reason for closing.
    case error(ErrorMessage)

    /// Decodes one line; nil when it is not JSON or not a message this version knows.
    public static func decode(_ line: String) -> ServerMessage? {
        guard let json = try? JSONParser.parse(line) else { return nil }
        return decode(json)
    }

    /// Decodes a parsed line; nil when it is not a message this version knows.
    public static func decode(_ json: JSONValue) -> ServerMessage? {
        switch json["type"]?.stringValue {
        case "hello": return Hello(json: json).map { .hello($0) }
        case "state": return StateEvent(json: json).map { .state($0) }
        case "sample": return SampleMessage(json: json).map { .sample($0) }
        case "subscribed": return SubscribedMessage(json: json).map { .subscribed($0) }
        case "error": return ErrorMessage(json: json).map { .error($0) }
        default: return nil
        }
    }

    /// The message as one JSON line, without the trailing newline.
    public var jsonLine: String {
        switch self {
        case .hello(let m): return m.jsonLine
        case .state(let m): return m.jsonLine
        case .sample(let m): return m.jsonLine
        case .subscribed(let m): return m.jsonLine
        case .error(let m): return m.jsonLine
        }
    }
}
