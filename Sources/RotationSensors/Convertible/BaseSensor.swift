import RotationProtocol
import RotationSystem

/// A convertible's base accelerometer, read beside the display's for the posture: its raw attributes, at most
/// every `interval`, never its buffer; and, while none is read, the one that appears.
///
/// Raw reads hold nothing: the base stays free for any other reader (iio-sensor-proxy reads no base accelerometer), and
/// a refused or failed read only leaves a sample without a base reading, which after `PostureLimits.baseLostAfter`
/// counts as a detached base. The reading is turned from the frame systemd's hwdb asks of a base (the display's frame
/// with the lid closed) into the engine's (the display's frame opened flat): (x, y, z) → (x, −y, −z), a half turn about
/// the hinge.
///
/// A detachable's base comes and goes while the display's capture runs: it may be away when the capture starts,
/// and come back as another IIO device. So while no base is read (none bound, or its reads failing), the IIO
/// devices' directory is listed at most once every `lookInterval`, on a sample's read (no wake-up of its own),
/// and discovery runs again only when that listing changed; the base it finds is read from then on. Owned by the
/// sensor thread.
final class BaseSensor {
    /// Seconds between reads: the fold changes slowly, and ten readings a second follow it.
    static let interval = 0.1
    /// Seconds between looks at the IIO devices' directory while no base is read.
    static let lookInterval = 1.0

    /// The base accelerometer read, and the paths of its raw attributes.
    private struct Read {
        var sensor: SensorDescription
        var paths: [String]
    }

    private var read: Read?
    private let rate: Double
    private var lastRead = -Double.infinity
    private var lastLook = -Double.infinity
    /// Whether the last read succeeded.
    private var reading = false
    /// The IIO devices listed when discovery last ran.
    private var listing: [String]

    /// The base accelerometer read now, or nil while there is none.
    var sensor: SensorDescription? { read?.sensor }

    /// Reads `sensor` (of `context`, discovered at `rate` Hz), when there is one and it offers raw x, y and z;
    /// without one, waits for one to appear.
    init(_ sensor: SensorDescription?, context: IIOContext, rate: Double) {
        self.rate = rate
        listing = BaseSensor.devices()
        read = sensor.flatMap { s in context.device(id: s.id).flatMap { BaseSensor.read(s, device: $0) } }
    }

    private static func read(_ sensor: SensorDescription, device: OpaquePointer) -> Read? {
        let channels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(device, "accel_\($0)") }
        guard channels.count == 3 else { return nil }
        return Read(sensor: sensor, paths: CapturedSensor.rawPaths(sensor.id, "accel", channels))
    }

    private static func devices() -> [String] { DeviceFiles.entries("/sys/bus/iio/devices").sorted() }

    /// The base's reading in the engine's frame when one is due at `now` (or `now` is asked for: the base reported
    /// motion) and the read succeeds; else nil.
    func reading(at now: Double, asked: Bool = false) -> Vector3? {
        guard asked || now - lastRead >= BaseSensor.interval else { return nil }
        lastRead = now
        if !reading { look(at: now) }
        guard let p = read, case .success(let x) = SysfsNumber.read(p.paths[0]), case .success(let y) = SysfsNumber.read(p.paths[1]),
              case .success(let z) = SysfsNumber.read(p.paths[2]) else {
            reading = false
            return nil
        }
        reading = true
        let g = p.sensor.calibration.apply(raw: Vector3(x, y, z))
        return Vector3(g.x, -g.y, -g.z)
    }

    /// While no base is read: discovery again if the IIO devices changed since it last ran.
    private func look(at now: Double) {
        guard now - lastLook >= BaseSensor.lookInterval else { return }
        lastLook = now
        let names = BaseSensor.devices()
        guard names != listing else { return }
        listing = names
        guard let ctx = try? IIOContext(timeoutMilliseconds: 500) else { return }
        let found = SensorDiscovery.inventory(context: ctx, udev: UDevDatabase(), rate: rate).base
        let before = read?.sensor.id
        read = found.flatMap { b in ctx.device(id: b.id).flatMap { BaseSensor.read(b, device: $0) } }
        if let p = read, p.sensor.id != before {
            Log.write(.info, "base accelerometer \(p.sensor.id) (\(p.sensor.name)) found: read for the posture (in_accel_*_raw, ten times a second)")
        }
    }
}
