import RotationProtocol

/// One plot of the picture: a sensor's readings (or the hinge's angle) against time, with its value axis.
struct SignalPlot: Sendable {
    /// The title above it, with the unit.
    let title: String
    /// Its lines.
    let series: [SignalSeries]
    /// Horizontal lines at thresholds, each with its label (the posture's hinge angles).
    var guides: [(value: Double, label: String)] = []
    /// The values its axis spans, when not those of its lines.
    var fixedDomain: ClosedRange<Double>?
    /// Its height, px.
    let height: Double
    /// Its class in the SVG (`plot accel`).
    let className: String

    /// The plots `recording` has readings for: the display accelerometer always, then the gyroscope, the base
    /// and the hinge where any sample (or, for the hinge, any state) carries one.
    static func plots(_ recording: PictureRecording) -> [SignalPlot] {
        let samples = recording.samples
        var plots = [SignalPlot(title: "display accelerometer, m/s²", series: axes(samples, "accel") { $0.acceleration },
                                height: 170, className: "plot accel")]
        if samples.contains(where: { $0.angularVelocity != nil }) {
            plots.append(SignalPlot(title: "gyroscope, rad/s", series: axes(samples, "gyro") { $0.angularVelocity },
                                    height: 120, className: "plot gyro"))
        }
        if samples.contains(where: { $0.base != nil }) {
            plots.append(SignalPlot(title: "base accelerometer, m/s² (in the base's frame)",
                                    series: axes(samples, "base") { $0.base }, height: 120, className: "plot base"))
        }
        if let hinge = hingePlot(recording) { plots.append(hinge) }
        return plots
    }

    /// x, y and z of the vector `read` gives, as three series.
    private static func axes(_ samples: [Sample], _ sensor: String, _ read: (Sample) -> Vector3?) -> [SignalSeries] {
        let vectors = samples.map { ($0.time, read($0)) }
        return Palette.axes.enumerated().map { i, axis in
            SignalSeries(name: axis.name, colour: axis.colour, dash: axis.dash, className: "series \(sensor)-\(axis.name)",
                         points: vectors.map { t, v in (t, v.map { i == 0 ? $0.x : i == 1 ? $0.y : $0.z }) })
        }
    }

    /// The hinge's plot: a hinge sensor's readings and the angle published, against the posture's thresholds.
    private static func hingePlot(_ recording: PictureRecording) -> SignalPlot? {
        let read = recording.samples.filter { $0.hinge != nil }
        let published = recording.changes.filter { $0.state.fold.hinge != nil }
        guard !read.isEmpty || !published.isEmpty else { return nil }
        var series: [SignalSeries] = []
        if !read.isEmpty {
            series.append(SignalSeries(name: "hinge sensor", colour: Palette.single, dash: nil, className: "series hinge-sensor",
                                       points: read.map { ($0.time, $0.hinge) }))
        }
        var steps = recording.changes.map { ($0.time, $0.state.fold.hinge.map(Double.init)) }
        if let end = recording.samples.last?.time, let last = steps.last, end > last.0 { steps.append((end, last.1)) }
        series.append(SignalSeries(name: "hinge published", colour: Palette.published, dash: nil, className: "series hinge-published",
                                   points: steps, steps: true))
        let guides = [(20.0, "closed ≤ 20°"), (200, "folded > 200°"), (320, "tablet ≥ 320°")]
        return SignalPlot(title: "hinge, °", series: series, guides: guides, fixedDomain: 0...360, height: 120, className: "plot hinge")
    }

    /// Draws the plot with its top at `top` against the time scale `x`, with a vertical grid line at each of
    /// `timeTicks`.
    func draw(into svg: inout SVGDocument, top: Double, x: LinearScale, timeTicks: [Double]) {
        let domain = fixedDomain ?? LinearScale.niceDomain(series.flatMap(\.values), minimumSpan: 1)
        let y = LinearScale(domain: domain, from: top + height, to: top)
        let left = x.from, right = x.to
        svg.open("g", ["class": .text(className)])
        svg.text(title, x: left, y: top - 7, size: 13, weight: "bold")
        for t in timeTicks { svg.line(t, top, t, top + height, stroke: Palette.grid, width: 1) }
        for tick in fixedDomain == nil ? y.ticks(about: 5) : [0, 90, 180, 270, 360] {
            svg.line(left, y(tick), right, y(tick), stroke: tick == 0 ? "#AAAAAA" : Palette.grid, width: 1)
            svg.line(left - 4, y(tick), left, y(tick), stroke: Palette.ink)
            svg.text(SVGDocument.number(tick), x: left - 7, y: y(tick) + 4, anchor: "end", size: 11)
        }
        for guide in guides {
            svg.line(left, y(guide.value), right, y(guide.value), stroke: "#888888", width: 1, dash: "3 3")
            svg.text(guide.label, x: right - 4, y: y(guide.value) - 3, anchor: "end", size: 10, fill: "#666666")
        }
        for s in series {
            let (runs, bridges) = s.lines(x: x, y: y)
            for run in runs {
                if run.count == 1 { svg.dot(run[0], fill: s.colour, className: s.className) }
                svg.polyline(run, stroke: s.colour, width: s.steps ? 2.2 : 1.4, dash: s.dash, className: s.className)
            }
            for bridge in bridges {
                svg.polyline(bridge, stroke: s.colour, width: 1, dash: s.dash, className: s.className + " sparse", opacity: 0.35)
            }
        }
        svg.element("rect", ["x": .number(left), "y": .number(top), "width": .number(right - left), "height": .number(height),
                             "fill": "none", "stroke": "#888888", "stroke-width": 1])
        svg.close()
    }
}
