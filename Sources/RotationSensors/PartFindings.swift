/// What the captures of a `SensorSource` learned of each part ("iio:device0 BMA250E") and keep for the next ones:
/// whether its motion events arrive, how many were lost in a row, whether its hub honours its hysteresis.
struct PartFindings {
    /// Per part ("iio:device0 BMA250E"): whether a motion event ever arrived from it (true), or its events were
    /// found not to arrive (false); absent until one or the other is known. Kept across captures.
    private var motionEvents: [String: Bool] = [:]
    /// Per part: motion events lost in a row (a safety read found the device moved with no event), since the
    /// last one that arrived. Kept across captures.
    private var lostEvents: [String: Int] = [:]
    /// Per part: whether its hub honours `in_accel_hysteresis` (`hysteresisHonoured`). Kept across captures.
    private var hysteresis: [String: Bool] = [:]

    /// What is known of a part's motion events: true when one arrived, false when they were found not to.
    func motionEventsWork(_ part: String) -> Bool? { motionEvents[part] }

    /// Records what is known of a part's motion events: one that arrived clears the count of lost ones.
    mutating func setMotionEventsWork(_ part: String, _ works: Bool) {
        motionEvents[part] = works
        if works { lostEvents[part] = 0 }
    }

    /// Whether a HID hub honours its hysteresis (`HysteresisWatch`): true once a report showed a change, false once
    /// it was found to report a still device or to miss a move; nil until then. Kept across captures.
    func hysteresisHonoured(_ part: String) -> Bool? { hysteresis[part] }

    /// Records what was found of a hub's hysteresis; false is final.
    mutating func setHysteresisHonoured(_ part: String, _ honoured: Bool) {
        if hysteresis[part] != false { hysteresis[part] = honoured }
    }

    /// Counts one more motion event lost in a row on `part`, and returns how many that makes.
    mutating func noteLostEvent(_ part: String) -> Int {
        lostEvents[part, default: 0] += 1
        return lostEvents[part]!
    }
}
