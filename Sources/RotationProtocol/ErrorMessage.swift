/// The `error` message: a command was refused, or the connection is about to be closed.
public struct ErrorMessage: Error, Sendable, Hashable, CustomStringConvertible {
    /// Machine-readable reasons.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The line is not valid UTF-8 JSON.
        case malformed
        /// The line is JSON but not a command object with a string `cmd`.
        case badCommand = "bad-command"
        /// `cmd` names no known command.
        case unknownCommand = "unknown-command"
        /// A command's argument is missing or has the wrong type or value.
        case badArgument = "bad-argument"
        /// The client may not have what it asked for (raw samples need root or the samples group).
        case forbidden
        /// A line was longer than the protocol allows; the connection closes.
        case lineTooLong = "line-too-long"
        /// The client sent commands faster than allowed, or did not read its replies; the connection closes.
        case flood
        /// The service already serves as many clients as it allows; the connection closes at once.
        case tooManyClients = "too-many-clients"
        /// The client read nothing of its pending output for too long; the connection closes. Sent only
        /// when the socket has room for it at that moment.
        case stuck
    }

    /// Why.
    public var code: Code
    /// A sentence for people: what was wrong and how to fix it.
    public var message: String

    /// Creates an error message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Decodes an `error` object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard json["type"]?.stringValue == "error",
              let c = json["code"]?.stringValue, let code = Code(rawValue: c),
              let m = json["message"]?.stringValue else { return nil }
        self.init(code, m)
    }

    /// "code: message".
    public var description: String { "\(code.rawValue): \(message)" }

    /// The message as one JSON line, without the trailing newline.
    public var jsonLine: String {
        var w = JSONWriter()
        w.add("type", "error")
        w.add("code", code.rawValue)
        w.add("message", message)
        return w.object
    }
}
