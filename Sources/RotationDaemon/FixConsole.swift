import Glibc
import RotationSystem

/// The terminal side of `rotationd --fix-mount`: lines on standard output, a progress line redrawn in place when
/// standard output is a terminal, and questions read from standard input when it is one.
final class FixConsole {
    /// Whether standard output is a terminal: progress is one line redrawn in place.
    let terminal: Bool
    /// Whether standard input is a terminal: the guide may wait for Enter and ask.
    let interactive: Bool
    private let out = OutputStreamFD.standardOutput
    /// Whether an in-place line is on screen and not yet ended.
    private var drawing = false
    /// The last plain progress line printed.
    private var lastPlain: String?

    init(terminal: Bool = isatty(1) == 1, interactive: Bool = isatty(0) == 1) {
        self.terminal = terminal
        self.interactive = interactive
    }

    /// Prints `text` and `terminated` (a line end), ending any in-place line first.
    func say(_ text: String = "", terminated: String = "\n") {
        endLine()
        out.write(text + terminated)
    }

    /// Prints `text` as a paragraph, its words wrapped to `width` columns, each line after `indent`.
    func paragraph(_ text: String, indent: String = "") {
        say(Self.wrapped(text, width: width, indent: indent))
    }

    /// The columns prose is wrapped to: 79, or fewer on a narrower terminal.
    var width: Int {
        var size = winsize()
        guard terminal, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 else { return 79 }
        return min(79, Int(size.ws_col) - 1)
    }

    /// `text` with its words wrapped to lines of at most `width` columns (a longer word alone on its line), each
    /// line after `indent`. A word ending in a comma or a semicolon stays with the next, so that a mount matrix
    /// (`0, 1, 0; -1, 0, 0; 0, 0, 1`) is never broken.
    static func wrapped(_ text: String, width: Int, indent: String = "") -> String {
        var words: [String] = []
        for word in text.split(separator: " ") {
            if let last = words.last, last.hasSuffix(",") || last.hasSuffix(";") { words[words.count - 1] += " " + word } else { words.append(String(word)) }
        }
        var lines: [String] = []
        var line = indent
        for word in words {
            if line.count > indent.count && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Prints `blocks`: prose as paragraphs, verbatim lines as they are.
    func show(_ blocks: [MountFixText.Block]) {
        for block in blocks {
            switch block {
            case .prose(let text): paragraph(text)
            case .verbatim(let text): say(text)
            }
        }
    }

    /// Shows a pose's progress: `line` redrawn in place on a terminal (cut to its width); elsewhere `plain`, when
    /// it is new.
    func progress(_ line: String, plain: String?) {
        if terminal {
            out.write("\r\u{1B}[2K" + String(line.prefix(width)))
            drawing = true
        } else if let plain, plain != lastPlain {
            out.write(plain + "\n")
            lastPlain = plain
        }
    }

    /// Ends an in-place line, leaving it on screen.
    func endLine() {
        if drawing { out.write("\n") }
        drawing = false
        lastPlain = nil
    }

    /// On a terminal, prints `prompt` and waits for a line; false at the end of input. Elsewhere true at once.
    func waitForEnter(_ prompt: String) -> Bool {
        guard interactive else { return true }
        endLine()
        out.write(prompt + " ")
        return readLine() != nil
    }

    /// On a terminal, asks `question` and says whether the answer was yes; elsewhere false.
    func ask(_ question: String) -> Bool {
        guard interactive else { return false }
        endLine()
        out.write(question + " [y/N] ")
        let answer = (readLine() ?? "").trimmed(" \t\r").lowercased()
        return answer == "y" || answer == "yes"
    }

    /// One line of standard input without its end, or nil at its end.
    private func readLine() -> String? {
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while true {
            let n = read(0, &c, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if c == 10 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(c)
        }
    }
}

extension String {
    /// The text without leading and trailing Unicode scalars of `set` (scalars, so that "\r\n" is two of them).
    func trimmed(_ set: String) -> String {
        let drop = Set(set.unicodeScalars)
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, drop.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, drop.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}
