/// A linear map from values (seconds, m/s², degrees) to picture coordinates, and the round values to mark on it.
struct LinearScale: Sendable {
    /// The values mapped, lowest first.
    let domain: ClosedRange<Double>
    /// The coordinates they map to: `from` for the domain's lower bound, `to` for its upper one.
    let from: Double
    let to: Double

    /// Where `value` lands.
    func callAsFunction(_ value: Double) -> Double {
        from + (value - domain.lowerBound) / (domain.upperBound - domain.lowerBound) * (to - from)
    }

    /// Round values within the domain about `count` of them: steps of 1, 2 or 5 times a power of ten.
    func ticks(about count: Int) -> [Double] {
        let step = Self.step(span: domain.upperBound - domain.lowerBound, count: count)
        var ticks: [Double] = []
        var i = (domain.lowerBound / step).rounded(.up)
        while i * step <= domain.upperBound + step * 1e-9 {
            // −0 prints as "-0".
            ticks.append(i * step == 0 ? 0 : i * step)
            i += 1
        }
        return ticks
    }

    /// The round step that divides `span` into about `count` parts.
    static func step(span: Double, count: Int) -> Double {
        let raw = span / Double(max(count, 1))
        guard raw > 0, raw.isFinite else { return 1 }
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        for factor in [1.0, 2, 5] where power * factor >= raw { return power * factor }
        return power * 10
    }

    /// The domain of `values` widened to round steps and by `margin` of its span, at least `minimum` wide.
    static func niceDomain(_ values: [Double], including fixed: [Double] = [], minimumSpan: Double = 1) -> ClosedRange<Double> {
        let all = values.filter(\.isFinite) + fixed
        guard var low = all.min(), var high = all.max() else { return 0...minimumSpan }
        if high - low < minimumSpan {
            let middle = (high + low) / 2
            low = middle - minimumSpan / 2
            high = middle + minimumSpan / 2
        }
        let step = Self.step(span: high - low, count: 4)
        return (low / step).rounded(.down) * step...(high / step).rounded(.up) * step
    }
}
