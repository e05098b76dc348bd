/// One line of a plot: a reading against time, faint between readings far apart, broken where the readings stop
/// for longer than a gap (or, for a published value, where it is none).
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
    /// Readings further apart than this are joined by a faint line (`bridges`): the still pace reads every 0.4 s,
    /// and a line at full strength between two such reads would show a move that nobody saw. A sensor read at its
    /// full rate, 10 Hz and up, stays under it.
    static let sparse = 0.15

    /// The values present.
    var values: [Double] { points.compactMap(\.value) }

    /// The line in picture coordinates (`x` and `y` map time and value): `runs`, the stretches of readings at most
    /// `sparse` apart, and `bridges`, the segments between two readings further apart (up to `gap`). Where more
    /// points than `2 × width` pixels fall in a run, each pixel column keeps its first, lowest, highest and last
    /// points, so a peak survives. A published value (`steps`) is all one run, however far apart its changes.
    func lines(x: LinearScale, y: LinearScale) -> (runs: [[(Double, Double)]], bridges: [[(Double, Double)]]) {
        var runs: [[(Double, Double)]] = [], bridges: [[(Double, Double)]] = []
        var run: [(time: Double, value: Double)] = []
        func flush() {
            if !run.isEmpty { runs.append(Self.thinned(run, x: x, y: y)) }
            run = []
        }
        for p in points {
            guard let v = p.value else {
                if steps, let last = run.last {
                    run.append((p.time, last.value))
                    flush()
                }
                continue
            }
            if let last = run.last, !steps, p.time - last.time > Self.sparse {
                if p.time - last.time <= Self.gap { bridges.append([(x(last.time), y(last.value)), (x(p.time), y(v))]) }
                flush()
            }
            if steps, let last = run.last { run.append((p.time, last.value)) }
            run.append((p.time, v))
        }
        flush()
        return (runs, bridges)
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
