import Foundation

/// Command-line options, as a program's `--help` names them and as a man page documents them.
enum OptionList {
    /// Every option named anywhere in `help`: words such as `--socket`, `--no-gyro` or `-h`, wherever they
    /// stand (the usage line, the option list, or the prose).
    static func named(inHelp help: String) -> Set<String> {
        var options: Set<String> = []
        let separators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "[](),;:|"))
        for word in help.components(separatedBy: separators) {
            if let option = option(word) { options.insert(option) }
        }
        return options
    }

    /// The options a rendered man page documents: the entries of its OPTIONS section, such as
    /// `--socket PATH` or `-h, --help`. `man` indents a section's text by 7 columns and an entry's
    /// description by 11, so an entry is a line of the section indented by exactly 7 that starts with `-`.
    static func documented(inPage page: String) -> Set<String> {
        var options: Set<String> = []
        var inOptions = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, !first.isWhitespace {
                inOptions = line == "OPTIONS"
                continue
            }
            guard inOptions, line.hasPrefix("       -"), !line.hasPrefix("        ") else { continue }
            for item in line.trimmingCharacters(in: .whitespaces).components(separatedBy: ", ") {
                let name = item.split(separator: " ").first.map(String.init) ?? item
                if let option = option(name) { options.insert(option) }
            }
        }
        return options
    }

    /// The option a word names, without an attached value (`--set=X` gives `--set`); nil for other words.
    private static func option(_ word: String) -> String? {
        let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
        let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: ".'\"`"))
        if trimmed.range(of: #"^--[a-z0-9][a-z0-9-]*$"#, options: .regularExpression) != nil { return trimmed }
        if trimmed.range(of: #"^-[a-zA-Z]$"#, options: .regularExpression) != nil { return trimmed }
        return nil
    }
}
