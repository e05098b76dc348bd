import Foundation
import Testing
import TestSupport

/// The C library's, the GStreamer element's and the QtSensors backend's packages, built from the same source as the
/// service.
@Suite("Library and element packages")
struct LibraryPackageTests {
    /// A package's files, as `dpkg-deb -c` lists them (symlinks as "path -> target").
    static func listing(_ package: String) throws -> [String] {
        let deb = try PackagePaths.requireDebianPackage(package)
        return try ChildProcess.run("dpkg-deb", ["-c", deb]).output().split(separator: "\n").compactMap { line in
            line.range(of: " ./").map { String(line[$0.upperBound...]) }
        }
    }

    static func multiarch() throws -> String {
        try ChildProcess.run("dpkg-architecture", ["-qDEB_HOST_MULTIARCH"]).output().trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("librotationd0 holds the shared object under its soname; -dev the link to it, the header, the man page and the pkg-config module; the element sits in GStreamer's plugin directory, the QtSensors backend in Qt's")
    func contents() throws {
        let triplet = try Self.multiarch()
        let version = try PackagePaths.version()
        let lib = try Self.listing("librotationd0")
        #expect(lib.contains("usr/lib/\(triplet)/librotationd.so.\(version)"), "\(lib)")
        #expect(lib.contains("usr/lib/\(triplet)/librotationd.so.0 -> librotationd.so.\(version)"), "\(lib)")
        #expect(!lib.contains { $0.hasSuffix("librotationd.so") || $0.contains("include") }, "\(lib)")
        let dev = try Self.listing("librotationd-dev")
        for path in ["usr/include/rotationd.h", "usr/lib/\(triplet)/pkgconfig/rotationd.pc", "usr/lib/\(triplet)/librotationd.so -> librotationd.so.0",
                     "usr/share/man/man3/librotationd.3.gz"] {
            #expect(dev.contains(path), "\(path) is not in librotationd-dev: \(dev)")
        }
        let element = try Self.listing("gstreamer1.0-rotationd")
        #expect(element.contains("usr/lib/\(triplet)/gstreamer-1.0/libgstrotationd.so"), "\(element)")
        let depends = try ChildProcess.run("dpkg-deb", ["-f", try PackagePaths.requireDebianPackage("gstreamer1.0-rotationd"), "Depends"]).output()
        #expect(depends.contains("librotationd0 (>= \(version))"), "the element depends on the library: \(depends)")
        let qt = try Self.listing("qt6-sensors-rotationd")
        #expect(qt.contains("usr/lib/\(triplet)/qt6/plugins/sensors/libqtsensors_rotationd.so"), "\(qt)")
        let qtDepends = try ChildProcess.run("dpkg-deb", ["-f", try PackagePaths.requireDebianPackage("qt6-sensors-rotationd"), "Depends"]).output()
        #expect(qtDepends.contains("librotationd0 (>= \(version))") && qtDepends.contains("libqt6sensors6"),
                "the QtSensors backend depends on the library and on QtSensors: \(qtDepends)")
    }

    @Test("the -dev package's librotationd(3) renders with man --warnings and draws no warning, and shows every function and error code the packaged header declares")
    func manPage() throws {
        let root = try ScratchDirectory()
        _ = try ChildProcess.run("dpkg-deb", ["-x", try PackagePaths.requireDebianPackage("librotationd-dev"), root.path]).output()
        let page = try ManPage.render(root.path("usr/share/man/man3/librotationd.3.gz"))
        #expect(page.warnings.isEmpty, "\(page.warnings)")
        let header = try String(contentsOfFile: root.path("usr/include/rotationd.h"), encoding: .utf8)
        let declared = Set(header.matches(of: /\b(rotationd_[a-z_]+)\(/).map { String($0.1) })
        let codes = Set(header.matches(of: /-(E[A-Z]+)/).map { String($0.1) })
        #expect(declared.count >= 10 && !codes.isEmpty, "\(declared) \(codes)")
        for name in declared.union(codes) {
            #expect(page.text.contains(name), "librotationd(3) does not show \(name)")
        }
    }

    @Test("the packaged library exports exactly the symbols of debian/librotationd0.symbols, each at version LIBROTATIOND_0")
    func exportedSymbols() throws {
        let root = try ScratchDirectory()
        _ = try ChildProcess.run("dpkg-deb", ["-x", try PackagePaths.requireDebianPackage("librotationd0"), root.path]).output()
        let so = root.path("usr/lib/\(try Self.multiarch())/librotationd.so.0")
        // nm shows a default version as name@@VERSION, the symbols file as name@VERSION: compare the names.
        let exported = Set(try ChildProcess.run("nm", ["-D", "--defined-only", so]).output().split(separator: "\n").compactMap { line in
            line.split(separator: " ").last.map { String($0.split(separator: "@").first ?? $0) }
        })
        let symbols = try String(contentsOfFile: PackagePaths.source("debian/librotationd0.symbols"), encoding: .utf8)
        let listed = Set(symbols.split(separator: "\n").filter { $0.hasPrefix(" ") }.compactMap { line in
            line.split(separator: " ").first.map { String($0.split(separator: "@").first ?? $0) }
        })
        #expect(exported == listed && exported.contains("rotationd_camera_angle"), "exported \(exported.sorted()), listed \(listed.sorted())")
        let versioned = try ChildProcess.run("nm", ["-D", "--defined-only", so]).output().split(separator: "\n").filter { $0.contains(" T ") }
        #expect(!versioned.isEmpty && versioned.allSatisfy { $0.hasSuffix("@@LIBROTATIOND_0") }, "\(versioned)")
        let soname = try ChildProcess.run("readelf", ["-d", so]).output()
        #expect(soname.contains("Library soname: [librotationd.so.0]"), "\(soname)")
    }
}
