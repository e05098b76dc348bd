/// A convertible's hinge sensor (`HingeDescription`), read beside the display's samples for the posture: its raw
/// angle attribute, at most every `interval`, never its buffer.
///
/// A raw read holds nothing, so the sensor stays free for any other reader. A refused or failed read, and a
/// reading the driver marks as unknown (cros-ec's 500), only leave a sample without a hinge reading; the posture
/// then holds the angle it had (`PostureEstimate`), or falls back to the accelerometers. A hub's raw read waits
/// for the hub's answer (a few milliseconds), which one sample in ten bears. Owned by the sensor thread.

import RotationSystem
final class HingeSensor {
    /// Seconds between reads: the base's (`BaseSensor.interval`), as both follow the same fold.
    static let interval = BaseSensor.interval

    /// The sensor, as discovery found it.
    let sensor: HingeDescription
    private let path: String
    private var lastRead = -Double.infinity

    /// Reads `sensor`'s raw angle attribute.
    init(_ sensor: HingeDescription) {
        self.sensor = sensor
        path = SensorError.sysfsPath(sensor.id, sensor.rawFile)
    }

    /// The angle between the panels in degrees when a reading is due at `now` and the sensor gives one; else nil.
    func reading(at now: Double) -> Double? {
        guard now - lastRead >= HingeSensor.interval else { return nil }
        lastRead = now
        switch SysfsNumber.read(path) {
        case .success(let raw):
            return sensor.degrees(raw: raw)
        case .failure(.garbage(let text)):
            let err = SensorError.badValue(path: path, value: String(text.trimmedSysfs), expected: "a number")
            Log.limited(.warning, key: "hinge", "\(err); no hinge reading")
            return nil
        case .failure(.system):
            return nil
        }
    }
}
