import RotationProtocol

/// Draws a recording as an SVG picture a maintainer reads first: each sensor's axes against time, the published
/// rotation and posture as labelled lanes, the flat spells as bands, and each published change as a numbered
/// marker, with the rule behind it named beside its badge and in a table underneath.
///
/// Pure: samples and changes in, SVG text out, no I/O. Colours and dash patterns read in print (`Palette`);
/// the time axis counts seconds from the first sample.
public enum TracePicture {
    /// The picture's width, px.
    public static let width = 1200.0
    /// The plot's left and right margins, px: the value axes' labels, and room at the right.
    static let left = 86.0
    static let right = 24.0
    /// The top of the first row of badges, px: under the title, the subtitle and the legend.
    static let badgeTop = 102.0
    /// The space between plots, px, which holds each plot's title.
    static let plotGap = 38.0

    /// The picture of `recording`, as a whole SVG document.
    public static func svg(_ recording: PictureRecording) -> String {
        let span = recording.span
        let x = LinearScale(domain: span.start...span.end, from: left, to: width - right)
        let marks = ChangeMark.marks(recording.changes)
        let plots = recording.samples.isEmpty ? [] : SignalPlot.plots(recording)
        let lanes = [StateLane.rotation(recording)] + [StateLane.posture(recording)].compactMap { $0 }
        let markers = ChangeMarkers(marks: marks)
        var svg = SVGDocument()
        let sparse = zip(recording.samples, recording.samples.dropFirst()).contains {
            (SignalSeries.sparse...SignalSeries.gap).contains($1.time - $0.time)
        }
        header(into: &svg, recording, hinge: plots.contains { $0.className == "plot hinge" }, sparse: sparse)
        let plotTop = badgeTop + Double(markers.rowsUsed(x: x)) * ChangeMarkers.rowHeight + plotGap - 8
        var y = plotTop
        var plotTops: [Double] = []
        for plot in plots {
            plotTops.append(y)
            y += plot.height + plotGap
        }
        if plots.isEmpty {
            svg.text("No samples were recorded.", x: left, y: y, size: 14, weight: "bold")
            y += 30
        }
        let laneTop = y - plotGap + 14
        let lanesBottom = laneTop + Double(lanes.count) * (StateLane.height + 6) - 6
        let flat = StateLane.runs(recording) { $0.flat ? true : nil }.filter { $0.value == true }
        flatBands(into: &svg, flat, x: x, top: plotTop, bottom: lanesBottom)
        let timeTicks = ticks(x).map(\.at)
        for (plot, top) in zip(plots, plotTops) { plot.draw(into: &svg, top: top, x: x, timeTicks: timeTicks) }
        for (i, lane) in lanes.enumerated() {
            lane.draw(into: &svg, top: laneTop + Double(i) * (StateLane.height + 6), x: x)
        }
        flatHatch(into: &svg, flat, x: x, top: laneTop, bottom: lanesBottom)
        let axisBottom = timeAxis(into: &svg, x: x, top: lanesBottom)
        markers.draw(into: &svg, x: x, badgeTop: badgeTop, bottom: lanesBottom)
        let unnumbered = recording.changes.count - marks.count
        let bottom = DecisionTable(marks: marks, unnumbered: unnumbered, start: span.start)
            .draw(into: &svg, top: axisBottom + 30, left: 16, right: width - right)
        return document(svg.body, height: (bottom + 12).rounded(.up), title: recording.title)
    }

    /// The SVG document around `body`.
    private static func document(_ body: String, height: Double, title: String) -> String {
        let w = SVGDocument.number(width), h = SVGDocument.number(height)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)" \
        font-family="DejaVu Sans, Verdana, Arial, sans-serif">
        <title>\(SVGDocument.escaped(title))</title>
        <defs><pattern id="flat-hatch" patternUnits="userSpaceOnUse" width="7" height="7" patternTransform="rotate(45)">\
        <line x1="0" y1="0" x2="0" y2="7" stroke="#999999" stroke-width="1.2"/></pattern></defs>
        <rect width="100%" height="100%" fill="#FFFFFF"/>

        """ + body + "</svg>\n"
    }

    /// The title, the subtitle and the legend: the published hinge's line where there is one, and the faint line
    /// where readings were `sparse`.
    private static func header(into svg: inout SVGDocument, _ recording: PictureRecording, hinge: Bool, sparse: Bool) {
        svg.open("g", ["class": "header"])
        svg.text(recording.title, x: 16, y: 26, size: 17, weight: "bold")
        if !recording.subtitle.isEmpty { svg.text(recording.subtitle, x: 16, y: 46, size: 12, fill: "#555555") }
        var at = 16.0
        var y = 68.0
        for axis in Palette.axes {
            svg.line(at, y - 4, at + 28, y - 4, stroke: axis.colour, width: 2, dash: axis.dash)
            svg.text(axis.name, x: at + 33, y: y, size: 12)
            at += 56
        }
        svg.text("each sensor's axes, in the device frame: x to the left edge, y to the bottom edge, z out of the screen "
                 + "(upright reads y = −g)", x: at, y: y, size: 12)
        at = 16
        y += 20
        if hinge {
            svg.line(at, y - 4, at + 28, y - 4, stroke: Palette.published, width: 2.2)
            svg.text("hinge published", x: at + 33, y: y, size: 12)
            at += 140
        }
        svg.element("rect", ["x": .number(at), "y": .number(y - 11), "width": 24, "height": 12, "fill": .text(Palette.flat),
                             "fill-opacity": .number(Palette.flatOpacity)])
        svg.element("rect", ["x": .number(at), "y": .number(y - 11), "width": 24, "height": 12, "fill": "url(#flat-hatch)",
                             "stroke": "#999999", "stroke-width": 0.5])
        svg.text("lying flat", x: at + 29, y: y, size: 12)
        at += 100
        svg.line(at + 8, y - 12, at + 8, y + 2, stroke: Palette.marker, width: 1.2, dash: "4 3")
        svg.element("circle", ["cx": .number(at + 8), "cy": .number(y - 5), "r": 6, "fill": "#FFFFFF",
                               "stroke": .text(Palette.marker), "stroke-width": 1])
        svg.text("a published change and the rule behind it (table below)", x: at + 20, y: y, size: 12)
        at += 370
        if sparse {
            svg.element("line", ["x1": .number(at), "y1": .number(y - 4), "x2": .number(at + 28), "y2": .number(y - 4),
                                 "stroke": .text(Palette.ink), "stroke-width": 1, "stroke-opacity": 0.35])
            svg.text("faint: between readings more than \(SVGDocument.number(SignalSeries.sparse)) s apart, read while still",
                     x: at + 33, y: y, size: 12)
        }
        svg.close()
    }

    /// The flat spells as grey bands behind the plots and lanes.
    private static func flatBands(into svg: inout SVGDocument, _ runs: [(start: Double, end: Double, value: Bool?)],
                                  x: LinearScale, top: Double, bottom: Double) {
        svg.open("g", ["class": "flat-spells"])
        for r in runs {
            let left = x(r.start), width = max(x(r.end) - left, 0.5)
            svg.element("rect", ["class": "flat-band", "x": .number(left), "y": .number(top), "width": .number(width),
                                 "height": .number(bottom - top), "fill": .text(Palette.flat),
                                 "fill-opacity": .number(Palette.flatOpacity)])
        }
        svg.close()
    }

    /// The flat spells hatched over the lanes, whose segments hide the bands.
    private static func flatHatch(into svg: inout SVGDocument, _ runs: [(start: Double, end: Double, value: Bool?)],
                                  x: LinearScale, top: Double, bottom: Double) {
        for r in runs {
            svg.element("rect", ["class": "flat-hatch", "x": .number(x(r.start)), "y": .number(top),
                                 "width": .number(max(x(r.end) - x(r.start), 0.5)), "height": .number(bottom - top),
                                 "fill": "url(#flat-hatch)", "fill-opacity": 0.8])
        }
    }

    /// The time axis's ticks: round seconds from the first sample, and where each falls.
    static func ticks(_ x: LinearScale) -> [(seconds: Double, at: Double)] {
        let relative = LinearScale(domain: 0...(x.domain.upperBound - x.domain.lowerBound), from: x.from, to: x.to)
        return relative.ticks(about: 12).map { ($0, relative($0)) }
    }

    /// The time axis under the lanes; returns its bottom.
    private static func timeAxis(into svg: inout SVGDocument, x: LinearScale, top: Double) -> Double {
        svg.open("g", ["class": "time-axis"])
        svg.line(x.from, top + 4, x.to, top + 4, stroke: Palette.ink)
        for tick in ticks(x) {
            svg.line(tick.at, top + 4, tick.at, top + 9, stroke: Palette.ink)
            svg.text(SVGDocument.number(tick.seconds), x: tick.at, y: top + 22, anchor: "middle", size: 11, className: "time-tick")
        }
        svg.text("time since the first sample, s", x: x.to, y: top + 40, anchor: "end", size: 12)
        svg.close()
        return top + 40
    }
}
