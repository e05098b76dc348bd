import Foundation

/// The real libinput's view of a test bed run (`Step.libinput`): the lines of `Tests/Testbed/probes/libinput-seat.c`
/// in order (`added`, `removed`, `open`, `close`, `switch`, `key` and its own `log:` lines), and where lines that
/// match a regular expression are.
public struct LibinputLines: Sendable {
    /// Each line, in order.
    public var lines: [String]

    /// libinput's lines among `results` (the neighbour `"libinput"`'s standard output).
    public init(_ results: Results) {
        lines = results.neighbour("libinput").map(\.line)
    }

    /// The positions of the lines matching `pattern`, in order.
    public func positions(_ pattern: String) -> [Int] {
        guard let rx = try? NSRegularExpression(pattern: pattern) else { return [] }
        return lines.indices.filter { rx.firstMatch(in: lines[$0], range: NSRange(lines[$0].startIndex..., in: lines[$0])) != nil }
    }

    /// The position of the first line matching `pattern` after position `after` (-1: from the start), or nil.
    public func first(_ pattern: String, after: Int = -1) -> Int? { positions(pattern).first { $0 > after } }

    /// The position of the last line matching `pattern`, or nil.
    public func last(_ pattern: String) -> Int? { positions(pattern).last }

    /// Whether libinput has the keyboard at `node` (`/dev/input/event0`) open at the end: it opened it again after
    /// it last closed it, as it does when it resumes a keyboard it suspended.
    public func hasOpen(_ node: String) -> Bool {
        guard let opened = last("^open \(node)$") else { return false }
        return last("^close \(node)$").map { $0 < opened } ?? true
    }
}
