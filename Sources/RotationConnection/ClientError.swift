import RotationProtocol

/// Why the client could not talk to the service.
public struct ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The socket path tried.
    public var path: String
    /// What went wrong.
    public var reason: String
    /// The service's own refusal of a command, when it answered with an `error`; nil when it could not be reached.
    public var refusal: ErrorMessage?

    /// Creates an error.
    public init(path: String, reason: String, refusal: ErrorMessage? = nil) {
        self.path = path
        self.reason = reason
        self.refusal = refusal
    }

    /// One line with the fix.
    public var description: String {
        if let refusal { return "rotationd at \(path) refused: \(refusal.message)" }
        return "no rotation service at \(path) (\(reason)); start rotationd, or pass --socket PATH / set ROTATIOND_SOCKET"
    }
}
