import Foundation
import Testing
import TestSupport

/// What the built binaries link.
@Suite("Linkage")
struct LinkageTests {
    @Test("rotationd and rotwatch link neither Foundation nor FoundationEssentials", arguments: ["rotationd", "rotwatch"])
    func noFoundation(command: String) throws {
        // The build the tests belong to links the Swift libraries dynamically: Foundation would be a needed library.
        let dynamic = try ChildProcess.run("readelf", ["-d", PackagePaths.built(command)]).output()
        #expect(dynamic.contains("libswiftCore.so"), "readelf -d \(command): \(dynamic)")
        #expect(!dynamic.contains("Foundation"), "\(command) needs a Foundation library:\n\(dynamic)")
        // The static release build carries the code itself: no Foundation type or function may be in it.
        let symbols = try ChildProcess.run("nm", [PackagePaths.release(command)]).output()
        let foundation = symbols.split(separator: "\n").filter { $0.contains("$s10Foundation") || $0.contains("$s20FoundationEssentials") }
        #expect(symbols.contains("$s16RotationProtocol"))
        #expect(foundation.isEmpty, "\(command) (release) holds Foundation symbols: \(foundation.prefix(5))")
    }
}

/// How the release binaries are linked.
@Suite("Link hardening")
struct LinkHardeningTests {
    @Test("The release binaries and the packaged ones are linked with full RELRO: a GNU_RELRO segment and BIND_NOW",
          arguments: ["rotationd", "rotwatch"])
    func fullRelro(command: String) throws {
        let (_, root) = try DebianPackageTests.unpack()
        for path in [PackagePaths.release(command), root.path("usr/bin/" + command)] {
            let segments = try ChildProcess.run("readelf", ["--wide", "--program-headers", path]).output()
            #expect(segments.contains("GNU_RELRO"), "\(path) has no RELRO segment")
            let dynamic = try ChildProcess.run("readelf", ["--wide", "--dynamic", path]).output()
            let flags = dynamic.split(separator: "\n").filter { $0.contains("(FLAGS") }
            #expect(flags.contains { $0.contains("BIND_NOW") } && flags.contains { $0.contains("NOW") && $0.contains("FLAGS_1") },
                    "\(path) is not bound at start-up: \(flags)")
        }
    }
}
