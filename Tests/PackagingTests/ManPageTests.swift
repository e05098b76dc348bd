import Foundation
import Testing
import TestSupport

/// rotationd(8) and rotwatch(1), from their scdoc sources, against the binaries' own `--help`.
@Suite("Man pages")
struct ManPageTests {
    static let pages = [("rotationd", "rotationd.8"), ("rotwatch", "rotwatch.1")]

    @Test("Both man pages render with man --warnings and draw no warning", arguments: pages)
    func rendersWithoutWarnings(command: String, page: String) throws {
        let dir = try ScratchDirectory()
        let rendered = try ManPage.renderSource(page, in: dir)
        #expect(rendered.warnings.isEmpty, "man --warnings -l \(page): \(rendered.warnings)")
        #expect(rendered.text.contains("NAME"))
        #expect(rendered.text.contains("\(command) - "))
    }

    @Test("Every option --help prints has an entry in the man page, and every entry is an option --help prints",
          arguments: pages)
    func optionsMatchHelp(command: String, page: String) throws {
        let help = try ChildProcess.run(PackagePaths.built(command), ["--help"]).output()
        let inHelp = OptionList.named(inHelp: help)
        #expect(inHelp.contains("--help") && inHelp.contains("--version"), "options read from --help: \(inHelp.sorted())")
        let dir = try ScratchDirectory()
        let documented = OptionList.documented(inPage: try ManPage.renderSource(page, in: dir).text)
        #expect(inHelp.subtracting(documented).isEmpty,
                "\(command) --help names options that \(page) does not document: \(inHelp.subtracting(documented).sorted())")
        #expect(documented.subtracting(inHelp).isEmpty,
                "\(page) documents options that \(command) --help does not name: \(documented.subtracting(inHelp).sorted())")
    }

    @Test("The option reader finds an option that --help names and the page lacks")
    func optionReaderSeesAMissingEntry() throws {
        let dir = try ScratchDirectory()
        let documented = OptionList.documented(inPage: try ManPage.renderSource("rotwatch.1", in: dir).text)
        let help = try ChildProcess.run(PackagePaths.built("rotwatch"), ["--help"]).output() + "\n  --full-rate     sample faster\n"
        #expect(OptionList.named(inHelp: help).subtracting(documented) == ["--full-rate"])
    }

    @Test("Each man page gives the sections a reader looks for", arguments: pages)
    func hasSections(command: String, page: String) throws {
        let dir = try ScratchDirectory()
        let text = try ManPage.renderSource(page, in: dir).text
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"] {
            #expect(text.split(separator: "\n").contains { $0 == section }, "\(page) has no \(section) section")
        }
        #expect(text.contains("/run/rotationd/rotationd.sock"))
        #expect(text.contains("ROTATIOND_SOCKET"))
        #expect(text.contains("/usr/share/doc/rotationd/protocol.md"))
    }
}
