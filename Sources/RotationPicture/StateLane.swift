import RotationProtocol

/// A lane under the plots: a published value (the rotation, the posture) as labelled segments along time, each
/// from the change that published it to the next change of that value.
struct StateLane: Sendable {
    /// One stretch of time with one value.
    struct Segment: Sendable {
        let start: Double
        let end: Double
        /// The label written in it ("left-up 90°"), a shorter one where that does not fit ("90°"), and its fill.
        let label: String
        let short: String
        let fill: String
        /// The value, as a data attribute for a reader of the SVG ("90", "tablet", "none").
        let value: String
    }

    /// The name at its left ("rotation").
    let name: String
    /// Its class in the SVG, also each segment's (`rotation-segment`).
    let className: String
    let segments: [Segment]
    /// Its height, px.
    static let height = 24.0

    /// The rotation lane: before the first decision "none yet", then each rotation published.
    static func rotation(_ recording: PictureRecording) -> StateLane {
        let segments = runs(recording) { $0.rotation }.map { r in
            Segment(start: r.start, end: r.end, label: r.value.map { "\($0.name) \($0.degrees)°" } ?? "none yet",
                    short: r.value.map { "\($0.degrees)°" } ?? "–", fill: Palette.fill(r.value),
                    value: r.value.map { String($0.degrees) } ?? "none")
        }
        return StateLane(name: "rotation", className: "rotation-segment", segments: segments)
    }

    /// The posture lane, or nil when no state published a posture.
    static func posture(_ recording: PictureRecording) -> StateLane? {
        guard recording.changes.contains(where: { $0.state.fold.posture != nil }) else { return nil }
        let segments = runs(recording) { $0.fold.posture }.map { r in
            Segment(start: r.start, end: r.end, label: r.value?.rawValue ?? "none", short: r.value.map { String($0.rawValue.prefix(3)) } ?? "–",
                    fill: Palette.fill(r.value), value: r.value?.rawValue ?? "none")
        }
        return StateLane(name: "posture", className: "posture-segment", segments: segments)
    }

    /// The stretches over which `value` of the published state stays the same, from the start of the recording to
    /// its end.
    static func runs<T: Equatable>(_ recording: PictureRecording, _ value: (DeviceState) -> T?) -> [(start: Double, end: Double, value: T?)] {
        let span = recording.span
        var runs: [(start: Double, end: Double, value: T?)] = []
        var current: T? = nil
        var since = span.start
        for change in recording.changes {
            let next = value(change.state)
            guard next != current else { continue }
            if change.time > since { runs.append((since, change.time, current)) }
            current = next
            since = change.time
        }
        runs.append((since, span.end, current))
        return runs
    }

    /// Draws the lane with its top at `top` against the time scale `x`.
    func draw(into svg: inout SVGDocument, top: Double, x: LinearScale) {
        svg.open("g", ["class": .text("lane \(name)")])
        svg.text(name, x: x.from - 7, y: top + Self.height / 2 + 4, anchor: "end", size: 12, weight: "bold")
        for s in segments {
            let left = x(s.start), width = max(x(s.end) - left, 0)
            svg.element("rect", ["class": .text(className), "data-value": .text(s.value), "x": .number(left), "y": .number(top),
                                 "width": .number(width), "height": .number(Self.height), "fill": .text(s.fill),
                                 "stroke": "#888888", "stroke-width": 0.5])
            // About 6.5 px a character at 12 px.
            let fits = [s.label, s.short].first { Double($0.count) * 6.5 + 6 <= width }
            if let text = fits {
                svg.text(text, x: left + width / 2, y: top + Self.height / 2 + 4, anchor: "middle", size: 12)
            }
        }
        svg.close()
    }
}
