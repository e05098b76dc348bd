/// Why the client could not talk to the service.
public struct ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The socket path tried.
    public var path: String
    /// What went wrong.
    public var reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// One line with the fix.
    public var description: String {
        "no rotation service at \(path) (\(reason)); start rotationd, or pass --socket PATH / set ROTATIOND_SOCKET"
    }
}
