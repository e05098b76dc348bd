import CIIO
import RotationProtocol

/// A convertible's base accelerometer, read beside the display's for the posture: its raw attributes, at most
/// every `interval`, never its buffer.
///
/// Raw reads hold nothing: the base stays free for any other reader (iio-sensor-proxy reads no base part), and a
/// refused or failed read only leaves a sample without a base reading, which after `PostureLimits.baseLostAfter`
/// counts as a detached base. The reading is turned from the frame systemd's hwdb asks of a base (the display's
/// frame with the lid closed) into the engine's (the display's frame opened flat): (x, y, z) → (x, −y, −z), a
/// half turn about the hinge. Owned by the sensor thread.
final class BasePanel {
    /// Seconds between reads: the fold changes slowly, and ten readings a second follow it.
    static let interval = 0.1

    /// The base part.
    let sensor: SensorDescription
    private let paths: [String]
    private var lastRead = -Double.infinity

    /// The base part of `device`, or nil when it offers no raw x, y and z.
    init?(_ sensor: SensorDescription, device: OpaquePointer) {
        let channels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(device, "accel_\($0)") }
        guard channels.count == 3 else { return nil }
        self.sensor = sensor
        paths = CapturedPart.rawPaths(sensor.id, "accel", channels)
    }

    /// The base's reading in the engine's frame when one is due at `now` and the read succeeds; else nil.
    func reading(at now: Double) -> Vector3? {
        guard now - lastRead >= BasePanel.interval else { return nil }
        lastRead = now
        guard case .success(let x) = SysfsNumber.read(paths[0]), case .success(let y) = SysfsNumber.read(paths[1]),
              case .success(let z) = SysfsNumber.read(paths[2]) else { return nil }
        let g = sensor.calibration.apply(raw: Vector3(x, y, z))
        return Vector3(g.x, -g.y, -g.z)
    }
}
