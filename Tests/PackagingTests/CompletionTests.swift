import Foundation
import Testing
import TestSupport

/// The bash completions in completions/, run by bash with bash-completion loaded.
@Suite("Bash completion")
struct CompletionTests {
    /// What the completion for `command` offers when the command line is `words` and the cursor ends the
    /// last word, one candidate per element. The words are given as bash-completion reassembles them
    /// (`--camera front:back:` is one word), and a candidate is what replaces the text after the last
    /// colon, as bash applies it.
    static func complete(_ command: String, _ words: [String], in directory: String? = nil) throws -> [String] {
        let script = """
        . /usr/share/bash-completion/bash_completion
        . "$1"; shift
        # compopt acts only inside a completion started by bash itself; here it has nothing to do.
        compopt() { :; }
        COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        complete -p "$1" > /dev/null || exit 3
        _\(command) "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let out = try ChildProcess.run("bash", ["-c", script, "bash", PackagePaths.source("completions/\(command)"), command] + words,
                                       directory: directory).output()
        return out.split(separator: "\n").map(String.init)
    }

    @Test("Completing an empty word offers every option --help prints", arguments: ["rotationd", "rotwatch"])
    func offersEveryOption(command: String) throws {
        let help = OptionList.named(inHelp: try ChildProcess.run(PackagePaths.built(command), ["--help"]).output())
        let offered = Set(try Self.complete(command, [""]))
        #expect(help.subtracting(offered).isEmpty, "not offered: \(help.subtracting(offered).sorted())")
        #expect(offered.subtracting(help).isEmpty, "offered but unknown to --help: \(offered.subtracting(help).sorted())")
    }

    @Test("A started option completes to the options it begins")
    func completesAPrefix() throws {
        #expect(try Self.complete("rotationd", ["--so"]).sorted() == ["--socket", "--socket-mode"])
        #expect(try Self.complete("rotwatch", ["--o"]) == ["--once"])
    }

    @Test("--replay and --record complete CSV traces and directories; --socket any file")
    func completesFileNames() throws {
        let dir = try ScratchDirectory()
        for name in ["turns.csv", "notes.txt"] { _ = FileManager.default.createFile(atPath: dir.path(name), contents: Data()) }
        try FileManager.default.createDirectory(atPath: dir.path("traces"), withIntermediateDirectories: true)
        for option in ["--replay", "--record"] {
            #expect(try Self.complete("rotationd", [option, ""], in: dir.path).sorted() == ["traces", "turns.csv"])
        }
        #expect(try Self.complete("rotationd", ["--socket", "n"], in: dir.path) == ["notes.txt"])
        #expect(try Self.complete("rotwatch", ["--socket", "t"], in: dir.path).sorted() == ["traces", "turns.csv"])
    }

    @Test("--camera completes the facing after the name, then the mount angle")
    func completesCameras() throws {
        #expect(try Self.complete("rotationd", ["--camera", "wide:"]).sorted() == ["back:", "external:", "front:"])
        #expect(try Self.complete("rotationd", ["--camera", "wide:b"]) == ["back:"])
        #expect(try Self.complete("rotationd", ["--camera", "wide:back:"]) == ["0", "90", "180", "270"])
        #expect(try Self.complete("rotationd", ["--camera", "wide:back:2"]) == ["270"])
    }

    @Test("--set completes exactly the threshold names rotationd accepts")
    func completesThresholds() throws {
        let refusal = try ChildProcess.run(PackagePaths.built("rotationd"), ["--set", "?"])
        #expect(refusal.status == 2)
        let listed = refusal.err.components(separatedBy: "valid names: ").last?
            .trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: ", ") ?? []
        #expect(listed.count > 10, "threshold names read from rotationd: \(listed)")
        let offered = try Self.complete("rotationd", ["--set", ""])
        #expect(Set(offered) == Set(listed.map { $0 + "=" }))
        #expect(try Self.complete("rotationd", ["--set", "dwell"]) == ["dwellTime="])
    }
}
