import Glibc
import CIIO
import RotationEngine

/// A sensor that was found but cannot be used, and why.
public struct RejectedSensor: Sendable, Hashable {
    /// The IIO device id.
    public var id: String
    /// What it would have been used as.
    public var kind: SensorDescription.Kind
    /// Why it cannot be used.
    public var error: SensorError
}

/// The sensors found in one scan of `/sys/bus/iio/devices`, and the ones rotationd would use.
public struct SensorInventory: Sendable {
    /// Every usable accelerometer, in device-number order.
    public var accelerometers: [SensorDescription] = []
    /// Every usable gyroscope, in device-number order.
    public var gyroscopes: [SensorDescription] = []
    /// Sensors with a calibration attribute that cannot be used.
    public var rejected: [RejectedSensor] = []

    /// The accelerometer fed to the engine: the first one in the display.
    public var display: SensorDescription? { accelerometers.first { $0.location == .display } }
    /// The base accelerometer, known but never fed to the engine.
    public var base: SensorDescription? { accelerometers.first { $0.location == .base } }
    /// The gyroscope fused with the display accelerometer: one on the same device, else the first one that is
    /// not in the base.
    public var gyroscope: SensorDescription? {
        guard let display else { return nil }
        return gyroscopes.first { $0.id == display.id } ?? gyroscopes.first { $0.location == .display }
    }
}

/// Finds accelerometers and gyroscopes through libiio and reads their calibration.
///
/// The rules, in order, are in `Docs/sensors.md`: location from udev `ACCEL_LOCATION`, the `label`, the
/// `location` attribute, else display; scale and offset per channel, else shared, else 1 and 0; mount matrix
/// as `mountMatrix` says.
public enum SensorDiscovery {
    /// What discovery looks for, for messages when nothing is found.
    public static let lookingFor =
        "an IIO device with input channels accel_x, accel_y and accel_z in /sys/bus/iio/devices"

    /// Scans the system once.
    ///
    /// - Parameter rate: the wanted sample rate in Hz; it decides the sampling frequency shown.
    public static func scan(rate: Double) throws(SensorError) -> SensorInventory {
        let ctx = try IIOContext(timeoutMilliseconds: 500)
        return inventory(context: ctx, udev: UDevDatabase(), rate: rate)
    }

    static func deviceNumber(_ id: String) -> Int {
        Int(id.drop { !$0.isNumber }) ?? Int.max
    }

    static func hasAxes(_ dev: OpaquePointer, _ prefix: String) -> Bool {
        ["x", "y", "z"].allSatisfy { IIOContext.inputChannel(dev, "\(prefix)_\($0)") != nil }
    }

    static func inventory(context ctx: IIOContext, udev: UDevDatabase, rate: Double) -> SensorInventory {
        var inv = SensorInventory()
        let devices = ctx.devices.filter { !iio_device_is_trigger($0) }
            .sorted { deviceNumber(IIOContext.id(of: $0)) < deviceNumber(IIOContext.id(of: $1)) }
        for dev in devices where hasAxes(dev, "accel") {
            do {
                inv.accelerometers.append(try describe(dev, kind: .accelerometer, context: ctx, udev: udev, rate: rate, accelerometer: nil))
            } catch {
                inv.rejected.append(RejectedSensor(id: IIOContext.id(of: dev), kind: .accelerometer, error: error))
            }
        }
        let display = inv.display
        for dev in devices where hasAxes(dev, "anglvel") {
            do {
                inv.gyroscopes.append(try describe(dev, kind: .gyroscope, context: ctx, udev: udev, rate: rate, accelerometer: display))
            } catch {
                inv.rejected.append(RejectedSensor(id: IIOContext.id(of: dev), kind: .gyroscope, error: error))
            }
        }
        return inv
    }

    /// Reads one number attribute of a channel: nil when absent, else the value or a typed error.
    private static func channelNumber(_ ch: OpaquePointer, _ attr: String, device id: String,
                                      expected: String, valid: (Double) -> Bool) throws(SensorError) -> (Double, String)? {
        guard IIOContext.hasChannelAttribute(ch, attr) else { return nil }
        let file = IIOContext.channelAttributeFile(ch, attr) ?? attr
        let path = SensorError.sysfsPath(id, file)
        switch IIOContext.readChannel(ch, attr) {
        case .failure(let e):
            throw .io(SystemError(operation: "read", path: path, errno: e.code, fix: SensorError.sysfsFix(e.code)))
        case .success(let text):
            let t = text.trimmedSysfs
            guard let v = Double(t), v.isFinite, valid(v) else {
                throw .badValue(path: path, value: String(t), expected: expected)
            }
            return (v, file)
        }
    }

    static func describe(_ dev: OpaquePointer, kind: SensorDescription.Kind, context ctx: IIOContext, udev: UDevDatabase,
                         rate: Double, accelerometer: SensorDescription?) throws(SensorError) -> SensorDescription {
        let id = IIOContext.id(of: dev)
        let name = IIOContext.name(of: dev) ?? id
        let label = IIOContext.label(of: dev)
        let prefix = kind.channelPrefix
        let axes = ["x", "y", "z"]
        let chans = axes.map { IIOContext.inputChannel(dev, "\(prefix)_\($0)")! }

        var scale = [1.0, 1.0, 1.0], offset = [0.0, 0.0, 0.0]
        var scaleSources = ["default", "default", "default"], offsetSources = scaleSources
        for i in 0..<3 {
            if let (v, file) = try channelNumber(chans[i], "scale", device: id, expected: "a positive number", valid: { $0 > 0 }) {
                scale[i] = v
                scaleSources[i] = file
            }
            if let (v, file) = try channelNumber(chans[i], "offset", device: id, expected: "a number", valid: { _ in true }) {
                offset[i] = v
                offsetSources[i] = file
            }
        }

        let sameDevice = accelerometer?.id == id
        let (location, locationSource) = locate(dev, id: id, label: label, udev: udev, sameAs: sameDevice ? accelerometer : nil)
        let (matrix, matrixSource) = mountMatrix(dev, id: id, kind: kind, firstChannel: chans[0], udev: udev,
                                                 accelerometer: accelerometer)

        let buffered = chans.allSatisfy { iio_channel_is_scan_element($0) }
        var trigger: String? = nil
        let number = id.hasPrefix("iio:device") ? String(id.dropFirst("iio:device".count)) : id
        // The kernel names a device's own trigger "<name>-dev<N>" or "<name>-trigger"; iio-sensor-proxy also
        // takes "accel_3d-dev<N>" (the HID sensor hub's) for any accelerometer, and so does rotationd.
        let triggerNames = ["\(name)-dev\(number)", "\(name)-trigger"] + (kind == .accelerometer ? ["accel_3d-dev\(number)"] : [])
        for d in ctx.devices where iio_device_is_trigger(d) {
            if let n = IIOContext.name(of: d), triggerNames.contains(n) {
                trigger = n
                break
            }
        }
        let timestampChannel = IIOContext.inputChannel(dev, "timestamp")
        let hasTimestamp = timestampChannel.map { iio_channel_is_scan_element($0) } ?? false
        let frequency = frequencyPlan(dev, firstChannel: chans[0], rate: rate)
        var batch = 1
        if buffered, case .success(let text) = IIOContext.readBuffer(dev, "hwfifo_watermark_max"),
           let hw = Int(text.trimmedSysfs), hw > 1 {
            let hz = frequency?.chosen ?? rate
            batch = max(1, min(hw, Int((hz / 10).rounded(.up))))
        }
        let channels = IIOContext.channels(of: dev).filter { !iio_channel_is_output($0) }
            .map(IIOContext.channelID).filter { $0 != "mount" }.sorted()
        let calibration = SensorCalibration(scale: Vector3(scale[0], scale[1], scale[2]),
                                            offset: Vector3(offset[0], offset[1], offset[2]),
                                            matrix: matrix, scaleSources: scaleSources, offsetSources: offsetSources,
                                            matrixSource: matrixSource)
        return SensorDescription(id: id, name: name, label: label, kind: kind, location: location,
                                 locationSource: locationSource, channels: channels, calibration: calibration,
                                 capture: buffered ? .buffered : .polled, trigger: trigger, frequency: frequency,
                                 batch: batch, hasTimestamp: hasTimestamp)
    }

    static func locate(_ dev: OpaquePointer, id: String, label: String?, udev: UDevDatabase,
                       sameAs accelerometer: SensorDescription?) -> (SensorDescription.Location, String) {
        if let accelerometer { return (accelerometer.location, "the accelerometer on the same device") }
        if let value = udev.property("ACCEL_LOCATION", device: id) {
            switch value.trimmedSysfs {
            case "", "display": return (.display, "udev ACCEL_LOCATION=\(value)")
            case "base": return (.base, "udev ACCEL_LOCATION=base")
            default:
                SensorLog.once(.warning, "\(id): ignoring udev ACCEL_LOCATION=\"\(value)\"; expected display or base")
            }
        }
        if let label {
            if label.hasSuffix("-base") { return (.base, "label \(label)") }
            if label.hasSuffix("-display") { return (.display, "label \(label)") }
        }
        if IIOContext.hasDeviceAttribute(dev, "location"), case .success(let text) = IIOContext.readDevice(dev, "location") {
            switch text.trimmedSysfs {
            case "base": return (.base, "location attribute base")
            case "lid", "display": return (.display, "location attribute \(text.trimmedSysfs)")
            default: break
            }
        }
        return (.display, "default")
    }

    /// The first usable mount matrix among the sources, in order; a rejected one is logged once, and so is one
    /// used with its third row replaced (see `MountMatrix.validated()`).
    ///
    /// An accelerometer: udev `ACCEL_MOUNT_MATRIX`, `mount_matrix`, `in_accel_mount_matrix`, `in_mount_matrix`.
    /// A gyroscope on the accelerometer's device shares its chip's mounting: udev `ANGLVEL_MOUNT_MATRIX`, else
    /// the accelerometer's final matrix (so a hwdb correction of the chip applies to both). A gyroscope on a
    /// device of its own: udev `ANGLVEL_MOUNT_MATRIX`, its own attributes as for an accelerometer, else the
    /// accelerometer's final matrix.
    static func mountMatrix(_ dev: OpaquePointer, id: String, kind: SensorDescription.Kind, firstChannel: OpaquePointer,
                            udev: UDevDatabase, accelerometer: SensorDescription?) -> (MountMatrix, String) {
        var candidates: [(source: String, read: () -> String?)] = []
        let sameDevice = accelerometer?.id == id
        let udevKey = kind == .accelerometer ? "ACCEL_MOUNT_MATRIX" : "ANGLVEL_MOUNT_MATRIX"
        candidates.append(("udev \(udevKey)", { udev.property(udevKey, device: id) }))
        if kind == .accelerometer || !sameDevice {
            candidates.append(("mount_matrix", {
                guard IIOContext.hasDeviceAttribute(dev, "mount_matrix"),
                      case .success(let t) = IIOContext.readDevice(dev, "mount_matrix") else { return nil }
                return t
            }))
            let channelFile = IIOContext.channelAttributeFile(firstChannel, "mount_matrix") ?? "in_\(kind.channelPrefix)_mount_matrix"
            candidates.append((channelFile, {
                guard IIOContext.hasChannelAttribute(firstChannel, "mount_matrix"),
                      case .success(let t) = IIOContext.readChannel(firstChannel, "mount_matrix") else { return nil }
                return t
            }))
            candidates.append(("in_mount_matrix", { try? TextFile.read(SensorError.sysfsPath(id, "in_mount_matrix")) }))
        }
        for (source, read) in candidates {
            guard let text = read() else { continue }
            do {
                let given = try MountMatrix.parse(String(text.trimmedSysfs))
                let used = try given.validated()
                if used == given { return (used, source) }
                SensorLog.once(.warning, "\(id): the mount matrix from \(source) (\"\(text.trimmedSysfs)\") has a third row that is zero or in the plane of the first two; using \"\(used)\", its third row replaced by the cross product of the first two")
                return (used, "\(source), third row replaced by the cross product of the first two")
            } catch {
                SensorLog.once(.warning, "\(id): ignoring the mount matrix from \(source) (\"\(text.trimmedSysfs)\"): \(error); trying the next source")
            }
        }
        if kind == .gyroscope, let accelerometer {
            return (accelerometer.calibration.matrix, "the accelerometer's, \(accelerometer.calibration.matrixSource)")
        }
        return (.identity, "identity")
    }

    static func frequencyPlan(_ dev: OpaquePointer, firstChannel: OpaquePointer, rate: Double) -> SensorDescription.FrequencyPlan? {
        var attribute: String
        var availableText: String? = nil
        if IIOContext.hasDeviceAttribute(dev, "sampling_frequency") {
            attribute = "sampling_frequency"
            if IIOContext.hasDeviceAttribute(dev, "sampling_frequency_available"),
               case .success(let t) = IIOContext.readDevice(dev, "sampling_frequency_available") { availableText = t }
        } else if IIOContext.hasChannelAttribute(firstChannel, "sampling_frequency") {
            attribute = IIOContext.channelAttributeFile(firstChannel, "sampling_frequency") ?? "sampling_frequency"
            if IIOContext.hasChannelAttribute(firstChannel, "sampling_frequency_available"),
               case .success(let t) = IIOContext.readChannel(firstChannel, "sampling_frequency_available") { availableText = t }
        } else {
            return nil
        }
        let available = (availableText ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
            .compactMap { Double($0) }.filter { $0.isFinite && $0 > 0 }.sorted()
        let chosen = available.first { $0 >= rate } ?? available.last ?? rate
        return SensorDescription.FrequencyPlan(attribute: attribute, chosen: chosen, available: available)
    }
}
