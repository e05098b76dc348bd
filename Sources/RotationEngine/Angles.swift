/// Angle helpers the engine needs, written out so the core imports no C library.
public enum Angles {
    /// Radians per degree.
    public static let radiansPerDegree = Double.pi / 180

    /// The angle of the point (x, y) from the positive x axis, in degrees in (−180, 180]; 0 for the origin.
    ///
    /// Accurate to about 1e-5 degrees, ample for thresholds of whole degrees.
    @inlinable public static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        atan2(y, x) / radiansPerDegree
    }

    /// The angle of the point (x, y) from the positive x axis, in radians in (−π, π]; 0 for the origin.
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        if ax == 0 && ay == 0 { return 0 }
        let swap = ay > ax
        let r = swap ? ax / ay : ay / ax          // in [0, 1]
        var a = atanUnit(r)
        if swap { a = Double.pi / 2 - a }
        if x < 0 { a = Double.pi - a }
        return y < 0 ? -a : a
    }

    /// arctan on [0, 1], by argument halving and a short odd series.
    @inlinable static func atanUnit(_ r: Double) -> Double {
        // atan(r) = 2 atan(r / (1 + sqrt(1 + r²))) maps [0, 1] onto [0, tan(π/8)] ≈ [0, 0.414];
        // halving once more leaves |u| ≤ 0.199, where nine terms are exact to double precision's needs.
        let h1 = r / (1 + (1 + r * r).squareRoot())
        let u = h1 / (1 + (1 + h1 * h1).squareRoot())
        let u2 = u * u
        var term = u, sum = u
        var k = 3.0
        for _ in 0..<9 {
            term *= -u2
            sum += term / k
            k += 2
        }
        return 4 * sum
    }

    /// The cosine of an angle in degrees, for turning configured thresholds into dot-product limits.
    public static func cosDegrees(_ degrees: Double) -> Double {
        var x = (degrees * radiansPerDegree).truncatingRemainder(dividingBy: 2 * Double.pi)
        if x > Double.pi { x -= 2 * Double.pi }
        if x < -Double.pi { x += 2 * Double.pi }
        let x2 = x * x
        var term = 1.0, sum = 1.0
        var n = 0.0
        for _ in 0..<20 {
            term *= -x2 / ((n + 1) * (n + 2))
            sum += term
            n += 2
        }
        return sum
    }

    /// The sine of an angle in degrees.
    public static func sinDegrees(_ degrees: Double) -> Double { cosDegrees(90 - degrees) }
}
