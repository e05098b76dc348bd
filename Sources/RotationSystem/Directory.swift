import Glibc

/// Directories the service keeps its files in.
public enum Directory {
    /// Creates `path` and every directory above it that is missing (`mkdir -p`), each with `mode`; one that exists
    /// already is no failure. Throws the first directory that could not be made, and why.
    public static func make(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var made = ""
        for part in path.split(separator: "/") {
            made += "/" + part
            if mkdir(made, mode) != 0 && errno != EEXIST {
                throw SystemError(operation: "create the directory", path: made, errno: .current)
            }
        }
    }
}
