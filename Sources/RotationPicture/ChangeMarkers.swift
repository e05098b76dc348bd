/// The numbered markers of the published changes: a dashed line across the plots and lanes at each change's
/// time, and a numbered badge above the plots, with the rule's name beside it where there is room.
struct ChangeMarkers: Sendable {
    /// Rows of badges, so that changes close in time keep their numbers apart.
    static let rows = 3
    /// The height of a row of badges, px.
    static let rowHeight = 20.0
    /// The badge's radius, px.
    static let radius = 8.0

    let marks: [ChangeMark]

    /// Where each badge goes, at `x` (its mark's time): its row, and whether its label fits beside it, left of
    /// `right` and clear of the next badge in its row.
    func placements(x: LinearScale, right: Double) -> [(row: Int, labelled: Bool)] {
        var rightEdge = [Double](repeating: -.infinity, count: Self.rows)
        var placed: [(row: Int, labelled: Bool)] = []
        for mark in marks {
            let at = x(mark.time)
            // About 6 px a character at 11 px.
            let labelWidth = Double(mark.label.count) * 6 + 6
            let clear = at - Self.radius - 3
            if let row = rightEdge.firstIndex(where: { $0 <= clear }), at + Self.radius + labelWidth <= right {
                rightEdge[row] = at + Self.radius + labelWidth
                placed.append((row, true))
            } else {
                let row = rightEdge.firstIndex { $0 <= clear } ?? rightEdge.indices.min { rightEdge[$0] < rightEdge[$1] }!
                rightEdge[row] = max(rightEdge[row], at + Self.radius)
                placed.append((row, false))
            }
        }
        return placed
    }

    /// How many rows of badges the marks take.
    func rowsUsed(x: LinearScale) -> Int {
        (placements(x: x, right: x.to).map(\.row).max() ?? 0) + 1
    }

    /// Draws the markers: badges from `badgeTop`, lines from there down to `bottom`; no label crosses the plot's
    /// right edge.
    func draw(into svg: inout SVGDocument, x: LinearScale, badgeTop: Double, bottom: Double) {
        let placed = placements(x: x, right: x.to)
        for (mark, place) in zip(marks, placed) {
            let at = x(mark.time)
            let cy = badgeTop + Self.rowHeight * (Double(place.row) + 0.5)
            svg.open("g", ["class": .text("mark " + mark.parts.map(\.rawValue).joined(separator: " ")),
                           "data-number": .number(Double(mark.number))])
            svg.tooltip("\(mark.number) at \(SVGDocument.number(mark.time - x.domain.lowerBound)) s: "
                        + mark.lines.joined(separator: "; "))
            svg.line(at, cy + Self.radius, at, bottom, stroke: Palette.marker, width: 1.2, dash: "4 3", className: "mark-line")
            svg.element("circle", ["cx": .number(at), "cy": .number(cy), "r": .number(Self.radius), "fill": "#FFFFFF",
                                   "stroke": .text(Palette.marker), "stroke-width": 1.2])
            svg.text(String(mark.number), x: at, y: cy + 4, anchor: "middle", size: mark.number < 100 ? 11 : 8, weight: "bold")
            if place.labelled {
                svg.text(mark.label, x: at + Self.radius + 3, y: cy + 4, size: 11, className: "mark-label")
            }
            svg.close()
        }
    }
}
