/// Where the service's socket lives, decided the same way by the service and by every client.
///
/// In order: an explicit path (`--socket`), the environment variable `ROTATIOND_SOCKET`, then
/// `/run/rotationd/rotationd.sock` for root or `$XDG_RUNTIME_DIR/rotationd.sock` for anyone else.
public enum SocketPath {
    /// The environment variable that overrides the default path.
    public static let environmentVariable = "ROTATIOND_SOCKET"
    /// The system-wide path, used by root and by the installed systemd socket unit.
    public static let system = "/run/rotationd/rotationd.sock"
    /// The socket's file name inside `$XDG_RUNTIME_DIR`.
    public static let fileName = "rotationd.sock"

    /// The path to use, or nil when none can be decided (not root and no `XDG_RUNTIME_DIR`).
    ///
    /// - Parameters:
    ///   - explicit: the value of `--socket`, if given.
    ///   - environment: a lookup of environment variables.
    ///   - isRoot: whether the effective user is root.
    public static func resolve(explicit: String?, environment: (String) -> String?, isRoot: Bool) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = environment(environmentVariable), !env.isEmpty { return env }
        if isRoot { return system }
        if let dir = environment("XDG_RUNTIME_DIR"), !dir.isEmpty {
            return dir.hasSuffix("/") ? dir + fileName : dir + "/" + fileName
        }
        return nil
    }

    /// The sentence to show when `resolve` found no path.
    public static let unresolvedAdvice =
        "no socket path: XDG_RUNTIME_DIR is not set and not running as root; pass --socket PATH or set \(environmentVariable)"
}
