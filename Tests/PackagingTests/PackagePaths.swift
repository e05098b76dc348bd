import Foundation

/// Where the package's sources and build outputs are.
///
/// The debug binaries come from `swift build`; the release binaries and the Debian package from `make deb`,
/// which `scripts/test.sh` (and so `make test`) runs before `swift test`.
enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func source(_ relative: String) -> String { root + "/" + relative }
    static func debug(_ name: String) -> String { root + "/.build/debug/" + name }
    static func release(_ name: String) -> String { root + "/.build/release/" + name }

    /// The version the debug rotationd prints: the one in the source.
    static func version() throws -> String {
        let line = try Command.output(debug("rotationd"), ["--version"]).trimmingCharacters(in: .whitespacesAndNewlines)
        return String(line.split(separator: " ").last ?? "")
    }

    /// `dist/rotationd_VERSION_ARCH.deb` for the source's version and this machine's architecture.
    static func debianPackage() throws -> String {
        let arch = try Command.output("dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
        return root + "/dist/rotationd_\(try version())_\(arch).deb"
    }

    /// The package's path, or a failure that says how to build it.
    static func requireDebianPackage() throws -> String {
        let deb = try debianPackage()
        guard FileManager.default.fileExists(atPath: deb) else { throw Missing(path: deb) }
        return deb
    }

    /// A build output the tests need is missing.
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "\(path) is missing: run `make deb` first (`make test` does)" }
    }
}
