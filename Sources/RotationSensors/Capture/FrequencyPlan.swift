/// Where a sensor's sampling frequency is set and which values its driver takes.
///
/// Drivers put the frequency per type (`in_accel_sampling_frequency`: hid-sensor, bmc150, kxcjk-1013, bmi323)
/// or for the whole device (`sampling_frequency`: cros-ec, st_accel, inv_mpu6050, st_lsm6dsx), and list the
/// choices in an attribute that may live elsewhere (bmc150 and mma8452 list them for the whole device beside
/// a per-type frequency). Most refuse a value outside their table (EINVAL); a few round it (st_lsm6dsx rounds
/// up, inv_mpu6050 to its divider); hid-sensor lists nothing and takes any rate. cros-ec lists three values,
/// 0 (off), the lowest and the highest rate, and its EC rounds anything between up to a rate it has.
public struct FrequencyPlan: Sendable, Hashable {
    /// The attribute written, such as `sampling_frequency` or `in_accel_sampling_frequency`.
    public var attribute: String
    /// The attribute the choices were read from, nil when the driver lists none.
    public var listAttribute: String?
    /// The advertised choices in increasing order, empty when the driver lists none.
    public var available: [Double]
    /// Any rate within these bounds is taken, when the driver gives bounds rather than a table (cros-ec).
    public var range: ClosedRange<Double>?
    /// Further attributes that must hold the same rate (bmi323 refuses to enable its buffer unless the
    /// accelerometer and gyroscope rates are equal).
    public var linked: [String]
    /// The value written for the configured rate, in Hz.
    public var chosen: Double

    /// Creates a plan for `rate` Hz from the text of the list attribute.
    public init(attribute: String, listAttribute: String?, listText: String?, linked: [String] = [], rate: Double) {
        self.attribute = attribute
        self.listAttribute = listAttribute
        self.linked = linked
        let values = (listText ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
            .compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }.sorted()
        // cros-ec's list (cros_ec_sensors_core_read_avail): 0 for stopped, then the lowest and highest rate.
        if values.count == 3, values[0] == 0, values[1] > 0, values[2] >= values[1] {
            range = values[1]...values[2]
            available = []
        } else {
            range = nil
            available = values.filter { $0 > 0 }
        }
        chosen = 0
        chosen = value(atLeast: rate)
    }

    /// The value to write for a wanted rate: the lowest choice at or above it, else the highest; within bounds,
    /// the rate itself clamped to them; with no list at all, the rate itself.
    public func value(atLeast hz: Double) -> Double {
        if let range { return min(max(hz, range.lowerBound), range.upperBound) }
        if available.isEmpty { return hz }
        return available.first { $0 >= hz - 1e-9 } ?? available.last!
    }

    /// The text written for `hz`: an integer when it is one (inv_mpu6050 takes integers only), else the
    /// shortest decimal.
    public static func text(_ hz: Double) -> String {
        hz == hz.rounded() && abs(hz) < 1e9 ? String(Int(hz)) : String(hz)
    }

    /// "62.5 Hz via in_accel_sampling_frequency (from 15.62 31.26 ... in sampling_frequency_available)", for
    /// `--list`.
    public var description: String {
        var text = "\(FrequencyPlan.text(chosen)) Hz via \(attribute)"
        if !linked.isEmpty { text += " and \(linked.joined(separator: ", ")), kept equal" }
        if let range, let list = listAttribute {
            text += " (any rate from \(FrequencyPlan.text(range.lowerBound)) to \(FrequencyPlan.text(range.upperBound)), \(list))"
        } else if let list = listAttribute, !available.isEmpty {
            text += " (from " + available.map(FrequencyPlan.text).joined(separator: " ") + " in \(list))"
        } else {
            text += " (no list of choices: the rate is written as it is)"
        }
        return text
    }
}
