/// The table under the picture: each numbered change at its time, with what was published and the rule behind
/// it in a few words.
struct DecisionTable: Sendable {
    let marks: [ChangeMark]
    /// Published changes not numbered: the tilt class or the hinge angle alone.
    let unnumbered: Int
    /// The time the picture counts from.
    let start: Double

    /// The height of a row, px.
    static let rowHeight = 17.0

    /// The table's lines, wrapped to `characters` each: the number and time on the first line of a change.
    func rows(characters: Int) -> [(number: String, time: String, text: String)] {
        var rows: [(String, String, String)] = []
        for mark in marks {
            var first = true
            for line in mark.lines {
                for piece in Self.wrapped(line, characters) {
                    rows.append(first ? (String(mark.number), SVGDocument.number(mark.time - start) + " s", piece) : ("", "", piece))
                    first = false
                }
            }
        }
        return rows
    }

    /// `text` cut at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrapped(_ text: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = "    " + word
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        lines.append(line)
        return lines
    }

    /// Draws the table from `top` between `left` and `right`; returns its bottom.
    func draw(into svg: inout SVGDocument, top: Double, left: Double, right: Double) -> Double {
        svg.open("g", ["class": "decisions"])
        svg.text("Published changes, numbered as on the markers (rules: Docs/algorithm.md, Docs/posture.md)", x: left, y: top,
                 size: 13, weight: "bold")
        var y = top + Self.rowHeight + 2
        if marks.isEmpty {
            svg.text("none: the engine published no rotation, flat spell, posture or inputs", x: left, y: y, size: 12)
            y += Self.rowHeight
        }
        // About 6.6 px a character at 12 px.
        for row in rows(characters: Int((right - left - 100) / 6.6)) {
            svg.text(row.number, x: left + 18, y: y, anchor: "end", size: 12, weight: "bold")
            svg.text(row.time, x: left + 86, y: y, anchor: "end", size: 12)
            svg.text(row.text, x: left + 100, y: y, size: 12)
            y += Self.rowHeight
        }
        if unnumbered > 0 {
            svg.text("and \(unnumbered) change\(unnumbered == 1 ? "" : "s") of the tilt class or the hinge angle alone, not numbered",
                     x: left, y: y, size: 11, fill: "#555555")
            y += Self.rowHeight
        }
        svg.close()
        return y
    }
}
