/// A command a client sends to the service, one JSON object per line with a string member `cmd`.
///
/// Members a command does not use are ignored, so newer clients can add optional members.
public enum ClientCommand: Sendable, Hashable {
    /// `{"cmd":"state"}`: send the current state now.
    case state
    /// `{"cmd":"hello"}`: send the `hello` message again.
    case hello
    /// `{"cmd":"subscribe","events":[...]}`: receive exactly these event types from now on.
    case subscribe([EventType])
    /// `{"cmd":"prefer","camera":KEY}`: the user's preferred camera, named by any key a program has for it (its
    /// name, node, libcamera id or bus path: `CameraLookup`), kept for the peer's user across restarts; `null`
    /// forgets it. Answered by a `state` carrying the new `preferred`, or an `error`.
    case prefer(String?)

    /// The names of the commands, for messages.
    public static let names = "state, hello, subscribe, prefer"

    /// The longest line, in bytes without its newline, either side may send.
    public static let maxLineBytes = 4096

    /// Parses one line (without its newline); the error is the `error` message to send back.
    public static func parse(_ line: [UInt8]) -> Result<ClientCommand, ErrorMessage> {
        guard line.count <= maxLineBytes else {
            return .failure(ErrorMessage(.lineTooLong, "a line is limited to \(maxLineBytes) bytes"))
        }
        let json: JSONValue
        do { json = try JSONParser.parse(line) } catch {
            return .failure(ErrorMessage(.malformed, "not a JSON object (\(error)); send one object per line such as {\"cmd\":\"state\"}"))
        }
        guard case .object = json else {
            return .failure(ErrorMessage(.badCommand, "a command is a JSON object such as {\"cmd\":\"state\"}"))
        }
        guard let name = json["cmd"]?.stringValue else {
            return .failure(ErrorMessage(.badCommand, "a command needs a string member \"cmd\", such as {\"cmd\":\"state\"}"))
        }
        switch name {
        case "state": return .success(.state)
        case "hello": return .success(.hello)
        case "subscribe":
            guard let list = json["events"]?.arrayValue else {
                return .failure(ErrorMessage(.badArgument, "subscribe needs \"events\", an array of event types such as [\"state\"]"))
            }
            var events: [EventType] = []
            for item in list {
                guard let s = item.stringValue, let e = EventType(rawValue: s) else {
                    return .failure(ErrorMessage(.badArgument, "unknown event type in \"events\"; the types are "
                        + EventType.allCases.map(\.rawValue).joined(separator: ", ")))
                }
                if !events.contains(e) { events.append(e) }
            }
            return .success(.subscribe(events))
        case "prefer":
            return parsePrefer(json)
        default:
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            return .failure(ErrorMessage(.unknownCommand, "unknown command \"\(shown)\"; the commands are \(names)"))
        }
    }

    /// `prefer`'s argument: a non-empty string, or null to forget the choice.
    private static func parsePrefer(_ json: JSONValue) -> Result<ClientCommand, ErrorMessage> {
        let usage = "prefer needs \"camera\": a camera's name, device node, libcamera id or bus path as a string, or null to forget the choice, such as {\"cmd\":\"prefer\",\"camera\":\"front\"}"
        guard let value = json["camera"] else { return .failure(ErrorMessage(.badArgument, usage)) }
        if value.isNull { return .success(.prefer(nil)) }
        guard let key = value.stringValue, !key.isEmpty else { return .failure(ErrorMessage(.badArgument, usage)) }
        return .success(.prefer(key))
    }

    /// Parses one line of text.
    public static func parse(_ line: String) -> Result<ClientCommand, ErrorMessage> { parse(Array(line.utf8)) }

    /// The command as one JSON line, without the trailing newline.
    public var jsonLine: String {
        var w = JSONWriter()
        switch self {
        case .state: w.add("cmd", "state")
        case .hello: w.add("cmd", "hello")
        case .subscribe(let events):
            w.add("cmd", "subscribe")
            w.addRaw("events", EventType.jsonArray(events))
        case .prefer(let key):
            w.add("cmd", "prefer")
            w.add("camera", key)
        }
        return w.object
    }
}
