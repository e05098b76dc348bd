/// One line of a panel: a reading against time, broken where the readings stop for longer than a gap (or, for
/// a published value, where it is none).
struct SignalSeries: Sendable {
    /// The name the legend and the tooltip give it.
    let name: String
    /// Its colour and dash pattern (`Palette`).
    let colour: String
    let dash: String?
    /// Its class in the SVG, such as `series accel-x`.
    let className: String
    /// Its points, in time order; nil where the reading is missing.
    let points: [(time: Double, value: Double?)]
    /// Whether a value holds until the next point, as a published state does, instead of running straight to it.
    var steps = false

    /// A longer pause between two readings breaks the line: nothing was read meanwhile (the engine's `maxGap`).
    static let gap = 1.0

    /// The values present.
    var values: [Double] { points.compactMap(\.value) }

    /// The runs of the line in picture coordinates: `x` and `y` map time and value, and where more points than
    /// `2 × width` pixels fall in a run, each pixel column keeps its first, lowest, highest and last points, so a
    /// peak survives.
    func runs(x: LinearScale, y: LinearScale) -> [[(Double, Double)]] {
        var runs: [[(Double, Double)]] = []
        var run: [(time: Double, value: Double)] = []
        func flush() {
            if !run.isEmpty { runs.append(Self.thinned(run, x: x, y: y)) }
            run = []
        }
        for p in points {
            // A published value holds however long no change comes; readings that stop leave a gap.
            if !steps, let last = run.last, p.time - last.time > Self.gap { flush() }
            guard let v = p.value else {
                if steps, let last = run.last {
                    run.append((p.time, last.value))
                    flush()
                }
                continue
            }
            if steps, let last = run.last { run.append((p.time, last.value)) }
            run.append((p.time, v))
        }
        flush()
        return runs
    }

    /// `run` in picture coordinates, thinned to at most four points per pixel column.
    private static func thinned(_ run: [(time: Double, value: Double)], x: LinearScale, y: LinearScale) -> [(Double, Double)] {
        let width = abs(x.to - x.from)
        guard Double(run.count) > 2 * width else { return run.map { (x($0.time), y($0.value)) } }
        var out: [(Double, Double)] = []
        var column = Int.min
        var bucket: [(time: Double, value: Double)] = []
        func emit() {
            guard let first = bucket.first, let last = bucket.last else { return }
            let low = bucket.min { $0.value < $1.value }!, high = bucket.max { $0.value < $1.value }!
            var kept = [first, low, high, last]
            kept.sort { $0.time < $1.time }
            for k in kept where out.last.map({ $0.0 != x(k.time) || $0.1 != y(k.value) }) ?? true {
                out.append((x(k.time), y(k.value)))
            }
            bucket = []
        }
        for p in run {
            let c = Int(x(p.time).rounded(.down))
            if c != column {
                emit()
                column = c
            }
            bucket.append(p)
        }
        emit()
        return out
    }
}
