/// What the captures of a `SensorSource` learned of each sensor ("iio:device0 BMA250E") and keep for the next ones:
/// whether its motion events arrive, how many were lost in a row, whether its hub honours its hysteresis.
struct SensorFindings {
    /// Per sensor ("iio:device0 BMA250E"): whether a motion event ever arrived from it (true), or its events were
    /// found not to arrive (false); absent until one or the other is known. Kept across captures.
    private var motionEvents: [String: Bool] = [:]
    /// Per sensor: motion events lost in a row (a safety read found the device moved with no event), since the
    /// last one that arrived. Kept across captures.
    private var lostEvents: [String: Int] = [:]
    /// The sensors whose hub was found to ignore `in_accel_hysteresis` (`HysteresisStill`): it reported the still
    /// device, or missed a move. Kept across captures.
    private var hysteresisIgnored: Set<String> = []

    /// What is known of a sensor's motion events: true when one arrived, false when they were found not to.
    func motionEventsWork(_ sensor: String) -> Bool? { motionEvents[sensor] }

    /// Records what is known of a sensor's motion events: one that arrived clears the count of lost ones.
    mutating func setMotionEventsWork(_ sensor: String, _ works: Bool) {
        motionEvents[sensor] = works
        if works { lostEvents[sensor] = 0 }
    }

    /// Whether the sensor's hub was found to ignore its hysteresis: it is not set again.
    func ignoresHysteresis(_ sensor: String) -> Bool { hysteresisIgnored.contains(sensor) }

    /// Records that the sensor's hub ignores its hysteresis.
    mutating func noteIgnoresHysteresis(_ sensor: String) { hysteresisIgnored.insert(sensor) }

    /// Counts one more motion event lost in a row on `sensor`, and returns how many that makes.
    mutating func noteLostEvent(_ sensor: String) -> Int {
        lostEvents[sensor, default: 0] += 1
        return lostEvents[sensor]!
    }
}
