/// The `subscribed` message: the reply to a `subscribe` command, naming the event types now in force.
public struct SubscribedMessage: Sendable, Hashable {
    /// The connection's subscription after the command.
    public var events: [EventType]

    /// Creates the reply.
    public init(events: [EventType]) { self.events = events }

    /// Decodes a `subscribed` object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard json["type"]?.stringValue == "subscribed", let list = json["events"]?.arrayValue else { return nil }
        var events: [EventType] = []
        for e in list {
            guard let name = e.stringValue, let t = EventType(rawValue: name) else { return nil }
            events.append(t)
        }
        self.init(events: events)
    }

    /// The message as one JSON line, without the trailing newline.
    public var jsonLine: String {
        var w = JSONWriter()
        w.add("type", "subscribed")
        w.addRaw("events", EventType.jsonArray(events))
        return w.object
    }
}
