/// The release, as `hello` reports it and `--version` prints it.
///
/// `current` is the one place the version is written: `rotationd --version` and `rotwatch --version` print
/// it, and `make deb` takes the Debian package's version from the built `rotationd`.
public enum ServiceVersion {
    /// The service name.
    public static let name = "rotationd"
    /// The release version.
    public static let current = "0.1.0"
}
