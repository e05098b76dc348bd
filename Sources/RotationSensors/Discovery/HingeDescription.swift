
/// A convertible's hinge sensor found by discovery: its driver, the raw attribute that holds the angle between
/// the panels, and how a raw count becomes degrees. A plain value; `HingeSensor` reads it.
///
/// Two drivers register one, and each gives the angle in its own units:
/// - `drivers/iio/position/hid-sensor-custom-intel-hinge.c` (an Intel sensor hub's custom hinge usage,
///   `HID-SENSOR-INT-020b`): device name `hinge`, three indexed `angl` channels, the hinge (`in_angl0_raw`,
///   scan index 0), the screen (`in_angl1_raw`) and the keyboard (`in_angl2_raw`), each labelled so
///   (`in_angl0_label` reads `hinge`). Offset, scale, sampling frequency and hysteresis are shared by type
///   (`in_angl_offset`, `in_angl_scale`, `in_angl_hysteresis`). The scale comes from the HID unit table in
///   `drivers/iio/common/hid-sensors/hid-sensor-attributes.c`, which turns the hub's degrees (or a field with
///   no unit) into radians, as the IIO ABI wants an angle: 0.017453293 for whole degrees. A raw read asks the
///   hub and waits for its answer. The hinge angle is the one read.
/// - `drivers/iio/common/cros_ec_sensors/cros_ec_lid_angle.c` (a Chromebook's EC): device name
///   `cros-ec-lid-angle`, one unindexed `angl` channel (`in_angl_raw`), no scale or offset. The EC computes it
///   from its own lid and base accelerometers and reports whole degrees, 0 to 360, or 500
///   (`LID_ANGLE_UNRELIABLE` in the EC's `motion_lid.h`) when it cannot tell, such as with the hinge upright.
///
/// A reading outside 0...360 (beyond `slack`) says nothing of the fold and is no reading.
public struct HingeDescription: Sendable, Hashable {
    /// The drivers whose angle is read.
    public enum Driver: String, Sendable, Hashable, CaseIterable {
        /// hid-sensor-custom-intel-hinge: the hinge channel of three, scaled to radians.
        case hidCustomHinge = "hid-sensor-custom-intel-hinge"
        /// cros-ec-lid-angle: one channel in whole degrees, 500 when unreliable.
        case crosECLidAngle = "cros-ec-lid-angle"

        /// The IIO device name the driver registers.
        public var deviceName: String { self == .hidCustomHinge ? "hinge" : "cros-ec-lid-angle" }

        /// The libiio id of the channel that holds the angle between the panels.
        public var channel: String { self == .hidCustomHinge ? "angl0" : "angl" }
    }

    /// How far outside 0...360 a scaled reading may fall and still count, clamped: a whole-degree count through
    /// a nine-digit scale lands a hair past 360.
    public static let slack = 0.5

    /// The IIO device id, such as `iio:device1`.
    public var id: String
    /// The driver's device name (the `name` attribute).
    public var name: String
    /// Which driver registered it.
    public var driver: Driver
    /// The raw attribute read, such as `in_angl0_raw`.
    public var rawFile: String
    /// Degrees per raw count after the offset: the driver's scale in radians turned into degrees, or 1 for a
    /// driver that counts degrees.
    public var degreesPerCount: Double
    /// What gave `degreesPerCount`, such as `in_angl_scale 0.017453293 rad`.
    public var scaleSource: String
    /// The count added before scaling.
    public var offset: Double
    /// The file the offset came from, or why there is none.
    public var offsetSource: String

    /// The angle between the panels for raw count `raw`, in degrees 0...360 (0 closed, 180 opened flat, 360
    /// folded back); nil when the driver says it does not know (cros-ec's 500) or the count is out of range.
    public func degrees(raw: Double) -> Double? {
        let angle = (raw + offset) * degreesPerCount
        guard angle.isFinite, angle >= -HingeDescription.slack, angle <= 360 + HingeDescription.slack else { return nil }
        return min(max(angle, 0), 360)
    }

    /// Human-readable lines for `rotationd --list`, each indented under a heading line.
    public var listing: String {
        ["\(id): \(name) (hinge sensor, \(driver.rawValue))",
         "  angle: \(rawFile), offset \(offset == 0 ? "0" : ScaleDiagnosis.format(offset)) (\(offsetSource)), "
            + "\(ScaleDiagnosis.format(degreesPerCount))° a count (from \(scaleSource)); 0° closed, 180° flat, 360° folded back, "
            + "and a reading outside 0...360° is none (cros-ec reports 500 when it cannot tell)",
         "  read: the raw attribute, at most ten times a second beside the display's samples, never the buffer"]
            .joined(separator: "\n")
    }
}

extension HingeDescription {
    /// The hinge sensor `dev` is, by its driver's device name and angle channel; nil when it is none. A scale
    /// or offset that is not a number (or a scale that is not positive) is a typed error naming the file.
    static func find(_ dev: OpaquePointer) throws(SensorError) -> HingeDescription? {
        guard let name = IIOContext.name(of: dev), let driver = Driver.allCases.first(where: { $0.deviceName == name }),
              let channel = IIOContext.inputChannel(dev, driver.channel) else { return nil }
        let files = DeviceFiles(id: IIOContext.id(of: dev))
        let rawFile = IIOContext.channelAttributeFile(channel, "raw") ?? "in_\(driver.channel)_raw"
        guard driver == .hidCustomHinge else {
            return HingeDescription(id: files.id, name: name, driver: driver, rawFile: rawFile, degreesPerCount: 1,
                                    scaleSource: "the driver, which counts whole degrees", offset: 0,
                                    offsetSource: "none: the driver has no offset")
        }
        var description = HingeDescription(id: files.id, name: name, driver: driver, rawFile: rawFile,
                                           degreesPerCount: 1,
                                           scaleSource: "default: degrees, as the HID unit table takes a hinge without a unit",
                                           offset: 0, offsetSource: "default")
        if let file = attributeFile(channel, "scale", files) {
            let radians = try SensorDiscovery.number(files, file, expected: "a positive number of radians per count") { $0 > 0 }
            description.degreesPerCount = radians * 180 / Double.pi
            description.scaleSource = "\(file) \(radians) rad"
        }
        if let file = attributeFile(channel, "offset", files) {
            description.offset = try SensorDiscovery.number(files, file, expected: "a number") { _ in true }
            description.offsetSource = file
        }
        return description
    }

    /// The file behind channel attribute `name`, wherever the driver shares it: per channel or by type (which
    /// libiio gives the channel), else by type or for the whole device as `DeviceFiles.locate` looks.
    private static func attributeFile(_ channel: OpaquePointer, _ name: String, _ files: DeviceFiles) -> String? {
        if let file = IIOContext.channelAttributeFile(channel, name), files.has(file) { return file }
        return files.locate(name, type: "angl")
    }
}
