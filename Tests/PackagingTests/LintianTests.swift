import Foundation
import Testing
import TestSupport

/// The package as Debian's own checker sees it, and the licence it carries.
@Suite("lintian and the licence")
struct LintianTests {
    static let lintian = "/usr/bin/lintian"

    @Test("lintian finds no error and no warning in each package",
          .enabled(if: FileManager.default.isExecutableFile(atPath: lintian), "lintian is not installed (scripts/install-deps.sh installs it)"),
          arguments: PackagePaths.packageNames)
    func lintianIsClean(package: String) throws {
        let deb = try PackagePaths.requireDebianPackage(package)
        let r = try ChildProcess.run(Self.lintian, [deb], timeout: Tolerance.lintian)
        let findings = (r.out + r.err).split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
        #expect(r.status == 0, "\(r)")
    }

    @Test("LICENSE is the Apache License 2.0, and debian/copyright says so in the machine-readable format")
    func licence() throws {
        let license = try String(contentsOfFile: PackagePaths.source("LICENSE"), encoding: .utf8)
        #expect(license == (try String(contentsOfFile: "/usr/share/common-licenses/Apache-2.0", encoding: .utf8)))
        let copyright = try String(contentsOfFile: PackagePaths.source("debian/copyright"), encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        let paragraphs = copyright.components(separatedBy: "\n\n")
        #expect(paragraphs.contains { $0.hasPrefix("Files: *\n") && $0.contains("\nLicense: Apache-2.0") }, "\(copyright)")
        #expect(paragraphs.contains { $0.hasPrefix("License: Apache-2.0\n") }, "\(copyright)")
        let (_, root) = try DebianPackageTests.unpack()
        #expect(try String(contentsOfFile: root.path("usr/share/doc/rotationd/copyright"), encoding: .utf8) == copyright)
    }
}
