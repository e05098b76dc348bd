#if canImport(Glibc)
import Glibc
#endif

/// Where the executables the tests run (`rotationd`, `rotwatch`, the fuzz replayers) were built: one rule for
/// every test target.
///
/// `ROTATIOND_BIN_DIR` names the directory when it is set. Otherwise it is the directory of the running test
/// bundle: SwiftPM links the bundle beside the package's executables, so a test run with `--build-path`, `-c`
/// or `--sanitize` runs the executables of that same build.
public enum BuiltProducts {
    /// The environment variable that overrides the directory.
    public static let variable = "ROTATIOND_BIN_DIR"

    /// The directory the executables are taken from.
    public static let directory: String = {
        if let dir = getenv(variable).map({ String(cString: $0) }), !dir.isEmpty { return dir }
        return parent(of: runningExecutable())
    }()

    /// The path of the built executable `name`, whether or not it exists.
    public static func path(_ name: String) -> String { directory + "/" + name }

    /// The path of the built executable `name`, or an error that says how to build it.
    public static func require(_ name: String) throws(Missing) -> String {
        let p = path(name)
        guard access(p, X_OK) == 0 else { throw Missing(path: p) }
        return p
    }

    /// A built executable the tests need is not there.
    public struct Missing: Error, CustomStringConvertible {
        /// Where it was looked for.
        public var path: String
        /// What is missing and how to get it.
        public var description: String {
            "\(path) is missing: build it in the same build as the tests (`swift build` with the same --build-path, "
                + "-c and --sanitize as `swift test`), or set \(BuiltProducts.variable) to the directory that holds it"
        }
    }

    /// The test bundle's own path, through /proc/self/exe.
    private static func runningExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "." }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
