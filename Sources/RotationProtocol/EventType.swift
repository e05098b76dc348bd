/// A kind of message a client can subscribe to.
public enum EventType: String, Sendable, Hashable, CaseIterable {
    /// `state` messages, one for every published change. Every client gets these unless it unsubscribes.
    case state
    /// `sample` messages, one per raw sensor sample; only for privileged clients, since an accelerometer
    /// stream can reveal keystrokes.
    case samples

    /// The events a new connection starts with.
    public static let defaults: [EventType] = [.state]

    /// The list as a JSON array of names.
    public static func jsonArray(_ events: [EventType]) -> String {
        var out = "["
        for (i, e) in events.enumerated() {
            if i > 0 { out += "," }
            JSONWriter.appendString(e.rawValue, to: &out)
        }
        return out + "]"
    }
}
