/// Where the service's socket lives.
///
/// The service uses, in order: an explicit path (`--socket`), the environment variable
/// `ROTATIOND_SOCKET`, then `/run/rotationd/rotationd.sock` for root or `$XDG_RUNTIME_DIR/rotationd.sock`
/// for anyone else. Clients decide the same way, except that without an explicit path or variable they
/// fall back to the system path when no per-user socket exists (`resolveForClient`), so a user finds a
/// system-wide service without configuration.
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

    /// The path a client connects to.
    ///
    /// As `resolve`, except that when neither `explicit` nor `ROTATIOND_SOCKET` is given and the per-user
    /// socket does not exist (or there is no `XDG_RUNTIME_DIR`), the system path is used.
    ///
    /// - Parameters:
    ///   - explicit: the value of `--socket`, if given.
    ///   - environment: a lookup of environment variables.
    ///   - isRoot: whether the effective user is root.
    ///   - exists: whether something exists at a path.
    public static func resolveForClient(explicit: String?, environment: (String) -> String?, isRoot: Bool,
                                        exists: (String) -> Bool) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = environment(environmentVariable), !env.isEmpty { return env }
        if let path = resolve(explicit: nil, environment: environment, isRoot: isRoot), exists(path) { return path }
        return system
    }

    /// The sentence to show when `resolve` found no path.
    public static let unresolvedAdvice =
        "no socket path: XDG_RUNTIME_DIR is not set and not running as root; pass --socket PATH or set \(environmentVariable)"
}
