/// What the captures of a `SensorSource` learned of each part ("iio:device0 BMA250E") and keep for the next ones:
/// whether its motion events arrive, how many were lost in a row, whether its hub honours its hysteresis.
struct PartFindings {
    /// Per part ("iio:device0 BMA250E"): whether a motion event ever arrived from it (true), or its events were
    /// found not to arrive (false); absent until one or the other is known. Kept across captures.
    private var motionEvents: [String: Bool] = [:]
    /// Per part: motion events lost in a row (a safety read found the device moved with no event), since the
    /// last one that arrived. Kept across captures.
    private var lostEvents: [String: Int] = [:]
    /// The parts whose hub was found to ignore `in_accel_hysteresis` (`HysteresisWatch`): it reported the still
    /// device, or missed a move. Kept across captures.
    private var hysteresisIgnored: Set<String> = []

    /// What is known of a part's motion events: true when one arrived, false when they were found not to.
    func motionEventsWork(_ part: String) -> Bool? { motionEvents[part] }

    /// Records what is known of a part's motion events: one that arrived clears the count of lost ones.
    mutating func setMotionEventsWork(_ part: String, _ works: Bool) {
        motionEvents[part] = works
        if works { lostEvents[part] = 0 }
    }

    /// Whether the part's hub was found to ignore its hysteresis: it is not set again.
    func ignoresHysteresis(_ part: String) -> Bool { hysteresisIgnored.contains(part) }

    /// Records that the part's hub ignores its hysteresis.
    mutating func noteIgnoresHysteresis(_ part: String) { hysteresisIgnored.insert(part) }

    /// Counts one more motion event lost in a row on `part`, and returns how many that makes.
    mutating func noteLostEvent(_ part: String) -> Int {
        lostEvents[part, default: 0] += 1
        return lostEvents[part]!
    }
}
