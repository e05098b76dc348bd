/// A threshold that was set to a name or a value the filter cannot use.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what would be accepted.
    public var reason: String

    /// Creates a configuration error.
    public init(reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
