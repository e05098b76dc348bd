import Glibc
import CIIO
import RotationProtocol
import RotationSystem

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
    /// Every usable hinge sensor, in device-number order.
    public var hinges: [HingeDescription] = []
    /// Every input device with a tablet-mode or lid switch, in node order; all are read for the posture.
    public var switches: [SwitchDescription] = []
    /// Sensors with a calibration attribute that cannot be used.
    public var rejected: [RejectedSensor] = []

    /// The accelerometer fed to the engine: the first one in the display.
    public var display: SensorDescription? { accelerometers.first { $0.location == .display } }
    /// The base accelerometer of a convertible, read beside the display one for the posture (`BaseSensor`).
    public var base: SensorDescription? { accelerometers.first { $0.location == .base } }
    /// The hinge sensor read for the posture, trusted before the accelerometers (`HingeSensor`): the first one.
    public var hinge: HingeDescription? { hinges.first }
    /// The gyroscope fused with the display accelerometer: one on the same device, else the first one that is
    /// not in the base.
    public var gyroscope: SensorDescription? {
        guard let display else { return nil }
        return gyroscopes.first { $0.id == display.id } ?? gyroscopes.first { $0.location == .display }
    }
}

/// Finds accelerometers, gyroscopes and hinge sensors through libiio and reads their calibration.
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
        findHinges(devices, into: &inv)
        inv.switches = udev.switches()
        return inv
    }

    /// Adds the hinge sensors among `devices` (`HingeDescription.find`), and the ones whose scale or offset
    /// cannot be used.
    static func findHinges(_ devices: [OpaquePointer], into inv: inout SensorInventory) {
        for dev in devices {
            do {
                if let hinge = try HingeDescription.find(dev) { inv.hinges.append(hinge) }
            } catch {
                inv.rejected.append(RejectedSensor(id: IIOContext.id(of: dev), kind: .hinge, error: error))
            }
        }
    }

    /// Reads a number attribute: the value, or a typed error naming the file and what it should hold.
    static func number(_ files: DeviceFiles, _ file: String, expected: String,
                               valid: (Double) -> Bool) throws(SensorError) -> Double {
        let path = files.path(file)
        let text: String
        do { text = try TextFile.read(path) } catch {
            throw .io(SystemError(operation: "read", path: path, errno: error.errno, fix: SensorError.sysfsFix(error.errno)))
        }
        let t = text.trimmedSysfs
        guard let v = Double(t), v.isFinite, valid(v) else {
            throw .badValue(path: path, value: String(t), expected: expected)
        }
        return v
    }

    static func describe(_ dev: OpaquePointer, kind: SensorDescription.Kind, context ctx: IIOContext, udev: UDevDatabase,
                         rate: Double, accelerometer: SensorDescription?) throws(SensorError) -> SensorDescription {
        let id = IIOContext.id(of: dev)
        let files = DeviceFiles(id: id)
        let name = IIOContext.name(of: dev) ?? id
        let label = IIOContext.label(of: dev)
        let prefix = kind.channelPrefix
        let axes = ["x", "y", "z"]

        var scale = [1.0, 1.0, 1.0], offset = [0.0, 0.0, 0.0]
        var scaleSources = ["default", "default", "default"], offsetSources = scaleSources
        for i in 0..<3 {
            if let file = files.locate("scale", type: prefix, axis: axes[i]) {
                scale[i] = try number(files, file, expected: "a positive number") { $0 > 0 }
                scaleSources[i] = file
            }
            if let file = files.locate("offset", type: prefix, axis: axes[i]) {
                offset[i] = try number(files, file, expected: "a number") { _ in true }
                offsetSources[i] = file
            }
        }

        let sameDevice = accelerometer?.id == id
        let (location, locationSource) = locate(files, label: label, udev: udev, sameAs: sameDevice ? accelerometer : nil)
        let (matrix, matrixSource) = mountMatrix(files, kind: kind, udev: udev, accelerometer: accelerometer)

        let scanned = axes.allSatisfy { files.has("scan_elements/in_\(prefix)_\($0)_en") }
        let (trigger, pollingReason) = scanned ? triggerChoice(files, context: ctx) : (nil, nil)
        let channels = IIOContext.channels(of: dev).filter { !iio_channel_is_output($0) }
            .map(IIOContext.channelID).filter { $0 != "mount" }.sorted()
        let calibration = SensorCalibration(scale: Vector3(scale[0], scale[1], scale[2]),
                                            offset: Vector3(offset[0], offset[1], offset[2]),
                                            matrix: matrix, scaleSources: scaleSources, offsetSources: offsetSources,
                                            matrixSource: matrixSource)
        return SensorDescription(id: id, name: name, label: label, kind: kind, location: location,
                                 locationSource: locationSource, channels: channels, calibration: calibration,
                                 capture: scanned && pollingReason == nil ? .buffered : .polled, pollingReason: pollingReason,
                                 trigger: trigger, frequency: sameDevice ? nil : frequencyPlan(files, type: prefix, rate: rate),
                                 batchLimit: files.read("buffer/hwfifo_watermark_max").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil },
                                 hasTimestamp: files.has("scan_elements/in_timestamp_en"),
                                 motionEvent: kind == .accelerometer ? MotionEventDriver.matching(files).map { "\($0.driver) (events/\($0.enable[0]))" } : nil,
                                 hysteresis: kind == .accelerometer ? HysteresisStill.band(files: files, scale: scale[0]) : nil,
                                 bufferEnabled: files.read("buffer/enable") == "1",
                                 sensorProxyType: udev.property("IIO_SENSOR_PROXY_TYPE", device: id),
                                 hasRaw: axes.allSatisfy { files.locate("raw", type: prefix, axis: $0) != nil })
    }

    /// The trigger a buffered capture attaches, or why the sensor cannot be captured through its buffer.
    ///
    /// A device without `trigger/current_trigger` has a buffer that needs no trigger (a hardware FIFO or the
    /// EC's sensor FIFO feeding a kfifo: st_lsm6dsx, cros-ec). Otherwise the device's own trigger is the one
    /// whose sysfs parent is the device's parent (`devm_iio_trigger_alloc(parent, ...)`), whatever the driver
    /// called it (`accel_3d-dev0`, `lis2dh12-accel-trigger`, `bmi323-imu-trig-1`); of several (bmc150 and
    /// kxcjk-1013 add an any-motion trigger, which fires only while the device moves), the one attached, else
    /// the one that is not a motion trigger. A trigger an administrator attached (an hrtimer) is kept when the
    /// device has none of its own. With neither, the driver registered no trigger because the sensor's interrupt
    /// line is not wired up, and a triggered-only buffer cannot be enabled (EINVAL): the sensor is polled.
    static func triggerChoice(_ files: DeviceFiles, context ctx: IIOContext) -> (trigger: String?, pollingReason: String?) {
        guard files.has("trigger/current_trigger") else { return (nil, nil) }
        let current = files.read("trigger/current_trigger") ?? ""
        let parent = DeviceFiles.parent(of: files.id)
        let own = ctx.devices.filter { iio_device_is_trigger($0) }
            .filter { parent != nil && DeviceFiles.parent(of: IIOContext.id(of: $0)) == parent }
            .compactMap { IIOContext.name(of: $0) }
        if own.contains(current) { return (current, nil) }
        if let mine = own.first(where: { !$0.contains("motion") }) ?? own.first { return (mine, nil) }
        if !current.isEmpty { return (current, nil) }
        return (nil, "the driver registered no trigger for it (drivers register one only when the sensor's interrupt line is wired up), so its buffer cannot run; attach one, such as an hrtimer trigger, to \(files.path("trigger/current_trigger")) to use it")
    }

    /// The sampling frequency attribute and its choices, wherever the driver put them; nil without one.
    ///
    /// On a device with an accelerometer and a gyroscope whose rates are separate attributes (bmi323), the
    /// accelerometer's plan also sets the gyroscope's, to a rate both tables have: that driver refuses to enable
    /// the buffer while they differ, even for an accelerometer-only scan.
    static func frequencyPlan(_ files: DeviceFiles, type: String, rate: Double) -> FrequencyPlan? {
        guard let attribute = files.locate("sampling_frequency", type: type) else { return nil }
        let list = files.locate("sampling_frequency_available", type: type)
        var listText = list.flatMap { files.read($0) }
        var linked: [String] = []
        if type == "accel", let other = files.locate("sampling_frequency", type: "anglvel"), other != attribute {
            linked = [other]
            if let mine = listText, let otherList = files.locate("sampling_frequency_available", type: "anglvel"),
               otherList != list, let theirs = files.read(otherList) {
                let words = Set(theirs.split(separator: " ").compactMap { Double($0) })
                listText = mine.split(separator: " ").filter { Double($0).map(words.contains) ?? false }.joined(separator: " ")
            }
        }
        return FrequencyPlan(attribute: attribute, listAttribute: list, listText: listText, linked: linked, rate: rate)
    }

    static func locate(_ files: DeviceFiles, label: String?, udev: UDevDatabase,
                       sameAs accelerometer: SensorDescription?) -> (SensorDescription.Location, String) {
        if let accelerometer { return (accelerometer.location, "the accelerometer on the same device") }
        if let value = udev.property("ACCEL_LOCATION", device: files.id) {
            switch value.trimmedSysfs {
            case "", "display": return (.display, "udev ACCEL_LOCATION=\(value)")
            case "base": return (.base, "udev ACCEL_LOCATION=base")
            default:
                Log.once(.warning, "\(files.id): ignoring udev ACCEL_LOCATION=\"\(value)\"; expected display or base")
            }
        }
        if let label {
            if label.hasSuffix("-base") { return (.base, "label \(label)") }
            if label.hasSuffix("-display") { return (.display, "label \(label)") }
        }
        if files.has("location"), let text = files.read("location") {
            switch text {
            case "base": return (.base, "location attribute base")
            case "lid", "display": return (.display, "location attribute \(text)")
            default: break
            }
        }
        return (.display, "default")
    }

    /// The first usable mount matrix among the sources, in order; a rejected one is logged once, and so is one
    /// used with its third row replaced (see `MountMatrix.validated()`).
    ///
    /// An accelerometer: udev `ACCEL_MOUNT_MATRIX`, `mount_matrix`, `in_accel_mount_matrix`,
    /// `in_accel_x_mount_matrix`, `in_mount_matrix`.
    /// A gyroscope on the accelerometer's device shares its chip's mounting: udev `ANGLVEL_MOUNT_MATRIX`, else
    /// the accelerometer's final matrix (so a hwdb correction of the chip applies to both). A gyroscope on a
    /// device of its own: udev `ANGLVEL_MOUNT_MATRIX`, its own attributes as for an accelerometer, else the
    /// accelerometer's final matrix.
    static func mountMatrix(_ files: DeviceFiles, kind: SensorDescription.Kind, udev: UDevDatabase,
                            accelerometer: SensorDescription?) -> (MountMatrix, String) {
        var candidates: [(source: String, read: () -> String?)] = []
        let id = files.id
        let sameDevice = accelerometer?.id == id
        let udevKey = kind == .accelerometer ? "ACCEL_MOUNT_MATRIX" : "ANGLVEL_MOUNT_MATRIX"
        candidates.append(("udev \(udevKey)", { udev.property(udevKey, device: id) }))
        if kind == .accelerometer || !sameDevice {
            // Drivers share it by all (st_accel, st_lsm6dsx), by type (kxcjk-1013, inv_mpu6050) or by direction
            // (bmc150); tried in iio-sensor-proxy's order, for a device that has more than one.
            let p = kind.channelPrefix
            for file in ["mount_matrix", "in_\(p)_mount_matrix", "in_\(p)_x_mount_matrix", "in_mount_matrix"] where files.has(file) {
                candidates.append((file, { files.read(file) }))
            }
        }
        for (source, read) in candidates {
            guard let text = read() else { continue }
            do {
                let given = try MountMatrix.parse(String(text.trimmedSysfs))
                let used = try given.validated()
                if used == given { return (used, source) }
                Log.once(.warning, "\(id): the mount matrix from \(source) (\"\(text.trimmedSysfs)\") has a third row that is zero or in the plane of the first two; using \"\(used)\", its third row replaced by the cross product of the first two")
                return (used, "\(source), third row replaced by the cross product of the first two")
            } catch {
                Log.once(.warning, "\(id): ignoring the mount matrix from \(source) (\"\(text.trimmedSysfs)\"): \(error); trying the next source")
            }
        }
        if kind == .gyroscope, let accelerometer {
            return (accelerometer.calibration.matrix, "the accelerometer's, \(accelerometer.calibration.matrixSource)")
        }
        return (.identity, "identity")
    }
}
