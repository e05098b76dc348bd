import RotationEngine

/// What the readings of an accelerometer at rest say about its scale attribute.
///
/// The engine learns what 1 g reads (`LearnedGravity`). A correctly scaled sensor reads standard gravity; one
/// whose reading at rest is more than `tolerance` away from it has a scale attribute that is missing or wrong,
/// and the diagnosis names the attribute and the factor. rotationd keeps deciding rotations either way, since
/// its filter judges the readings relative to what the sensor reads; the message is for whoever fixes the driver.
public struct ScaleDiagnosis: Sendable, Hashable {
    /// How far (relative) what 1 g reads may be from standard gravity before the scale is called wrong.
    public static let tolerance = 0.2

    /// The sensor's IIO device id, such as `iio:device0`.
    public var device: String
    /// The scale attribute(s) the readings were scaled by, or empty when the driver has none.
    public var attributes: [String]
    /// The scale in force, m/s² per count (the x axis's).
    public var scale: Double
    /// What 1 g reads, in m/s² after that scale.
    public var oneG: Double
    /// Standard gravity, what 1 g should read.
    public var gravity: Double

    /// Diagnoses `sensor` from what the engine learned; nil until enough stillness has been seen.
    public init?(sensor: SensorDescription, learned: LearnedGravity, gravity: Double,
                 after seconds: Double = LearnedGravity.settlingTime) {
        guard learned.isSettled(after: seconds), learned.value > 0, gravity > 0 else { return nil }
        device = sensor.id
        var names: [String] = []
        for source in sensor.calibration.scaleSources where source != "default" && !names.contains(source) {
            names.append(source)
        }
        attributes = names
        scale = sensor.calibration.scale.x
        oneG = learned.value
        self.gravity = gravity
    }

    /// How many times standard gravity the sensor reads at rest.
    public var factor: Double { oneG / gravity }

    /// Whether the scale is off by more than `tolerance`.
    public var isWrong: Bool { abs(factor - 1) > ScaleDiagnosis.tolerance }

    /// The scale that would make 1 g read standard gravity, m/s² per count.
    public var suggestedScale: Double { scale / factor }

    /// One line for `--list` and the log: what 1 g reads and, when that is wrong, which attribute is to blame.
    public var description: String {
        let reads = "1 g reads \(ScaleDiagnosis.format(oneG)) (\(ScaleDiagnosis.format(factor)) × \(ScaleDiagnosis.format(gravity)) m/s²)"
        guard isWrong else { return "\(device): \(reads): the scale is right" }
        var fix = "rotations are still decided, but programs that trust the scale read \(ScaleDiagnosis.format(factor)) g at rest; the driver should report a scale of about \(ScaleDiagnosis.format(suggestedScale))"
        if factor > 0.6 && factor < 1.6 {
            fix += " (a factor this close to 1 can also be an uncalibrated offset, which makes some orientations read more than others: hold the device another way round and compare)"
        }
        if attributes.isEmpty {
            return "\(device): \(reads): the driver has no in_accel_scale, so the readings are raw counts; \(fix)"
        }
        return "\(device): \(reads): \(attributes.joined(separator: ", ")) (\(ScaleDiagnosis.format(scale))) is probably wrong by a factor of \(ScaleDiagnosis.format(factor)); \(fix)"
    }

    /// A number with four significant digits, without exponent for ordinary sizes.
    public static func format(_ v: Double) -> String {
        guard v.isFinite, v != 0 else { return String(v) }
        var digits = 3
        var m = abs(v)
        while m >= 10 && digits > 0 { m /= 10; digits -= 1 }
        while m < 1 && digits < 9 { m *= 10; digits += 1 }
        let p = pow10(digits)
        let rounded = (v * p).rounded() / p
        if digits == 0 { return String(Int(rounded)) }
        var text = String(rounded)
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func pow10(_ n: Int) -> Double {
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return p
    }
}
