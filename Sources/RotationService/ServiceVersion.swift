/// The service's identity as reported in `hello`.
public enum ServiceVersion {
    /// The service name.
    public static let name = "rotationd"
    /// The release version.
    public static let current = "0.1.0"
}
