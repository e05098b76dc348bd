import RotationProtocol

/// What a subscription to the service yields.
public enum ServiceEvent: Sendable {
    /// A connection was made and the service greeted; `line` is the raw `hello` line.
    case connected(path: String, hello: Hello, line: String)
    /// Any later message (`state`, `sample`, `subscribed`, `error`), decoded, with its raw line.
    case message(ServerMessage, line: String)
    /// The camera the service recommends to this user changed (or is first known on a connection): follow it when
    /// not recording (`Docs/cameras.md`, "Which camera to open"); nil when there is none. It comes right after the
    /// `state` message that carried it.
    case preferredCamera(Camera?)
    /// The connection was lost or could not be made; the next attempt follows after `retryAfter` seconds.
    case disconnected(reason: String, retryAfter: Double)
}
