import Foundation
import TestSupport

/// Where the package's sources and build outputs are.
///
/// The binaries built with the tests are the ones `BuiltProducts` finds (`ROTATIOND_BIN_DIR`, else beside the
/// test bundle); the static release binaries and the Debian package come from `make deb`, which
/// `scripts/test.sh` (and so `make test`) runs before `swift test`, and which builds in `.build/release`.
enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func source(_ relative: String) -> String { root + "/" + relative }
    /// An executable of the build the tests belong to.
    static func built(_ name: String) -> String { BuiltProducts.path(name) }
    /// An executable of the static release build `make deb` packages.
    static func release(_ name: String) -> String { root + "/.build/release/" + name }

    /// The version the built rotationd prints: the one in the source.
    static func version() throws -> String {
        let line = try ChildProcess.run(built("rotationd"), ["--version"]).output().trimmingCharacters(in: .whitespacesAndNewlines)
        return String(line.split(separator: " ").last ?? "")
    }

    /// The binary packages built from the source: the service, the C library, its development files, the
    /// GStreamer element, the QtSensors backend.
    static let packageNames = ["rotationd", "librotationd0", "librotationd-dev", "gstreamer1.0-rotationd", "qt6-sensors-rotationd"]

    /// `dist/NAME_VERSION_ARCH.deb` for the source's version and this machine's architecture.
    static func debianPackage(_ name: String = "rotationd") throws -> String {
        let arch = try ChildProcess.run("dpkg", ["--print-architecture"]).output().trimmingCharacters(in: .whitespacesAndNewlines)
        return root + "/dist/\(name)_\(try version())_\(arch).deb"
    }

    /// The package's path, or a failure that says how to build it.
    static func requireDebianPackage(_ name: String = "rotationd") throws -> String {
        let deb = try debianPackage(name)
        guard FileManager.default.fileExists(atPath: deb) else { throw Missing(path: deb) }
        return deb
    }

    /// A build output the tests need is missing.
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "\(path) is missing: run `make deb` first (`make test` does)" }
    }
}
