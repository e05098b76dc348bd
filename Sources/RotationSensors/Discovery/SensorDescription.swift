
/// Everything discovery learned about one three-axis IIO sensor: identity, placement, calibration and how it
/// would be captured. A plain value; the libiio objects it was read from stay inside `RotationSensors`.
public struct SensorDescription: Sendable, Hashable {
    /// What the sensor measures.
    public enum Kind: String, Sendable, Hashable {
        /// Proper acceleration, channels `accel_x/y/z`, in m/s² after scaling.
        case accelerometer
        /// Angular velocity, channels `anglvel_x/y/z`, in rad/s after scaling.
        case gyroscope
        /// The angle between a convertible's panels, channel `angl` (`HingeDescription`); never a three-axis
        /// description, only what a `RejectedSensor` would have been.
        case hinge

        /// The IIO channel type prefix: `accel`, `anglvel` or `angl`.
        public var channelPrefix: String {
            switch self {
            case .accelerometer: "accel"
            case .gyroscope: "anglvel"
            case .hinge: "angl"
            }
        }
    }

    /// Which panel of a convertible (the lid, with the display, or the base) the sensor sits in.
    public enum Location: String, Sendable, Hashable {
        /// The display (lid): the sensor whose reading rotates the screen.
        case display
        /// The base (keyboard half): known, but never fed to the engine.
        case base
    }

    /// How the driver lets samples be taken (what rotationd does is `plan`'s).
    public enum CaptureMode: String, Sendable, Hashable {
        /// Through the device's buffer (`/dev/iio:deviceN`), woken by the kernel.
        case buffered
        /// By reading `in_<type>_<axis>_raw` at the configured rate.
        case polled
    }

    /// The IIO device id, such as `iio:device0`.
    public var id: String
    /// The driver's device name (the `name` attribute).
    public var name: String
    /// The `label` attribute, when the driver sets one.
    public var label: String?
    /// What the sensor measures.
    public var kind: Kind
    /// Where it sits.
    public var location: Location
    /// What decided the location, such as `udev ACCEL_LOCATION=base` or `label accel-display`.
    public var locationSource: String
    /// The ids of the device's input channels (without the mount pseudo-channel), sorted by id.
    public var channels: [String]
    /// Scale, offset and mount matrix, with their sources.
    public var calibration: SensorCalibration
    /// Buffered or polled.
    public var capture: CaptureMode
    /// Why the sensor is polled although its channels are scan elements, or nil.
    public var pollingReason: String?
    /// The trigger attached in buffered mode: the device's own (the trigger whose parent is the device's
    /// parent), or the one an administrator attached; nil for a buffer that needs none.
    public var trigger: String?
    /// The sampling frequency setting, when the device has one (for a gyroscope on the accelerometer's device,
    /// the accelerometer's plan covers it).
    public var frequency: FrequencyPlan?
    /// The most samples one wake-up may batch: the hardware FIFO's size (`buffer/hwfifo_watermark_max`), else
    /// unbounded (a kfifo of any length).
    public var batchLimit: Int?
    /// Whether buffered scans carry the `timestamp` channel.
    public var hasTimestamp: Bool
    /// The accelerometer's motion event (`MotionEventDriver`): the driver and the file that enables it, such as
    /// `bmc150-accel (events/in_accel_x_roc_either_en)`; nil when it has none.
    public var motionEvent: String?
    /// The hysteresis a HID sensor hub is asked for while the device is still (`HysteresisStill`), as written to
    /// `in_accel_hysteresis`; nil when the sensor has no such attribute or its unit is unknown.
    public var hysteresis: String? = nil
    /// Whether the buffer was found enabled by another program when the device was discovered (after any
    /// buffer rotationd itself had left enabled was put back: `SettingsJournal`).
    public var bufferEnabled: Bool = false
    /// iio-sensor-proxy's udev tag (`IIO_SENSOR_PROXY_TYPE`, such as `iio-poll-accel iio-buffer-accel`): its rules
    /// are installed, and the desktop reads the device through it. Nil without one.
    public var sensorProxyType: String?
    /// Whether the channels have `raw` attributes to poll (a device can offer its readings through its buffer
    /// only).
    public var hasRaw: Bool = true

    /// Whether this is a gyroscope on a device with no accelerometer channels (st_lsm6dsx registers its
    /// gyroscope as a device of its own; inv_mpu6050 and bmi323 scan both on one).
    public var isGyroscopeAlone: Bool { kind == .gyroscope && !channels.contains { $0.hasPrefix("accel") } }

    /// How a capture reads the device, beside whom, and why.
    public var plan: CapturePlan { CapturePlan(self) }

    /// Human-readable lines for `rotationd --list`, each indented under a heading line.
    public var listing: String {
        let c = calibration
        var lines: [String] = []
        let labelText = label.map { ", label \($0)" } ?? ""
        lines.append("\(id): \(name) (\(kind.rawValue)\(labelText))")
        lines.append("  location: \(location.rawValue) (from \(locationSource))")
        lines.append("  channels: \(channels.joined(separator: " "))")
        let axes = ["x", "y", "z"]
        let scales = [c.scale.x, c.scale.y, c.scale.z]
        let offsets = [c.offset.x, c.offset.y, c.offset.z]
        lines.append("  scale: " + (0..<3).map { "\(axes[$0]) \(scales[$0]) (\(c.scaleSources[$0]))" }.joined(separator: ", "))
        lines.append("  offset: " + (0..<3).map { "\(axes[$0]) \(offsets[$0]) (\(c.offsetSources[$0]))" }.joined(separator: ", "))
        lines.append("  mount matrix: \(c.matrix) (from \(c.matrixSource))")
        var capture = "  driver offers: \(self.capture == .buffered ? "a buffer" : "raw reads only")"
        if self.capture == .buffered {
            capture += trigger.map { ", trigger \($0)" } ?? ", no trigger needed"
            capture += hasTimestamp ? ", timestamp channel" : ", no timestamp channel"
            if let batchLimit { capture += ", hardware FIFO of \(batchLimit) samples" }
        } else {
            capture += " (reading in_\(kind.channelPrefix)_*_raw)"
            if let pollingReason { capture += ": \(pollingReason)" }
        }
        lines.append(capture)
        lines.append("  mode: \(plan.summary)")
        if let f = frequency { lines.append("  sampling frequency: \(f.description)") }
        if let event = motionEvent {
            lines.append("  motion event: \(event), "
                         + (self.capture == .buffered ? "armed while the device is still instead of reading it"
                            : "not used: the driver registered no trigger or buffer, so the sensor's interrupt line is not wired up and the event cannot fire"))
        }
        if let hysteresis {
            lines.append("  hysteresis: \(HysteresisStill.file) set to \(hysteresis) (\(HysteresisStill.share) g) while the device is still, when the sensor is read through its buffer: a hub that honours it then reports only a change, and rotationd sleeps; one that ignores it is read at the still pace")
        }
        return lines.joined(separator: "\n")
    }
}
