/// How a capture reads one sensor, and why: the one place where rotationd decides whether it may hold the
/// device's buffer (and with it the device's node) or must read the raw attributes, so that it never makes
/// another reader of the device fail.
///
/// The kernel lets one process at a time hold `/dev/iio:deviceN` (`iio_chrdev_open`: EBUSY), and most drivers
/// refuse raw reads while the buffer runs (`iio_device_claim_direct_mode`, or a test of `iio_buffer_enabled`, in
/// their `read_raw`: bmc150, kxcjk-1013, mxc4005, stk8312, stk8ba50, st_accel, inv_mpu6050, bmi323, st_lsm6dsx,
/// mma8452 among the sensors tablets ship). On a desktop, iio-sensor-proxy polls such sensors' `in_accel_*_raw` every
/// 700 ms, and reads a HID sensor hub through its buffer, opening the node on every tick; rot8 and scripts poll the
/// raw attributes too. So the buffer is used only where that refuses nobody. A gyroscope on a device of its own
/// (st_lsm6dsx, bmg160) has no such neighbour: iio-sensor-proxy reads no gyroscope, and pollers read the
/// accelerometer, so its buffer is held unless another reader is seen on it. A plain value, from what discovery
/// found (`SensorDescription`).
public struct CapturePlan: Sendable, Hashable {
    /// How samples are taken.
    public enum Mode: String, Sendable, Hashable {
        /// Through the device's buffer (`/dev/iio:deviceN`), woken by the kernel.
        case buffered
        /// By reading `in_<type>_<axis>_raw`.
        case polled
    }

    /// Buffered or polled.
    public var mode: Mode
    /// The other reader found, such as "iio-sensor-proxy (udev IIO_SENSOR_PROXY_TYPE=iio-poll-accel)"; nil when
    /// none was found.
    public var neighbour: String?
    /// Why this mode, in a sentence that names the file or driver behind it.
    public var reason: String

    /// The drivers whose `read_raw` answers while the buffer runs, by the device name they register: on every
    /// other driver a running buffer makes every other program's raw reads fail.
    static let rawReadsWhileBuffered: [String: String] = [
        "accel_3d": "hid-sensor-accel-3d (drivers/iio/accel/hid-sensor-accel-3d.c asks the hub)",
        "gyro_3d": "hid-sensor-gyro-3d (drivers/iio/gyro/hid-sensor-gyro-3d.c asks the hub)",
        "cros-ec-accel": "cros-ec-sensors (drivers/iio/common/cros_ec_sensors: the EC answers)",
        "cros-ec-gyro": "cros-ec-sensors (drivers/iio/common/cros_ec_sensors: the EC answers)",
        "cros-ec-accel-legacy": "cros-ec-accel-legacy (drivers/iio/accel/cros_ec_accel_legacy.c)",
        "bmi160": "bmi160 (drivers/iio/imu/bmi160/bmi160_core.c reads the registers)",
    ]

    /// The HID sensor hub's driver, known by the trigger it registers for its device (`accel_3d-dev0`,
    /// `gyro_3d-dev1`, hid-sensor-trigger.c) whatever name the device has; nil for another trigger.
    static func hidTrigger(_ trigger: String?) -> String? {
        guard let trigger, trigger.hasPrefix("accel_3d-dev") || trigger.hasPrefix("gyro_3d-dev") else { return nil }
        return "hid-sensor (its trigger \(trigger) is the hub's)"
    }

    /// The plan for `sensor` as discovery found it.
    public init(_ sensor: SensorDescription) {
        self.init(canBuffer: sensor.capture == .buffered, pollingReason: sensor.pollingReason, name: sensor.name,
                  trigger: sensor.trigger, hasRaw: sensor.hasRaw, bufferEnabled: sensor.bufferEnabled,
                  sensorProxyType: sensor.sensorProxyType, gyroscopeAlone: sensor.isGyroscopeAlone)
    }

    /// The plan from the facts it is chosen on: whether the driver offers a buffer that can run (else why not),
    /// the device's name and trigger, whether it has raw attributes, whether its buffer is enabled by another
    /// program, iio-sensor-proxy's udev tag, and whether the device is a gyroscope with no accelerometer channels.
    init(canBuffer: Bool, pollingReason: String?, name: String, trigger: String?, hasRaw: Bool, bufferEnabled: Bool,
         sensorProxyType: String?, gyroscopeAlone: Bool = false) {
        let proxy = sensorProxyType.map { "iio-sensor-proxy (udev IIO_SENSOR_PROXY_TYPE=\($0))" }
        neighbour = bufferEnabled ? "another program's buffer (buffer/enable reads 1)" + (proxy.map { ", " + $0 } ?? "") : proxy
        mode = .polled
        if bufferEnabled {
            reason = "its buffer is enabled and not by rotationd, so another program captures from it: reading in_*_raw, writing nothing to the device while that buffer runs"
        } else if !canBuffer {
            reason = pollingReason ?? "its channels are not scan elements: the driver offers no buffer"
        } else if !hasRaw {
            mode = .buffered
            reason = "it has no in_*_raw attributes to poll: its buffer is the only way to read it"
        } else if sensorProxyType != nil {
            reason = "iio-sensor-proxy's udev rules tag the device, so the desktop reads it (its raw attributes, or its buffer through the node): holding the buffer would make those reads fail"
        } else if let driver = CapturePlan.rawReadsWhileBuffered[name] ?? CapturePlan.hidTrigger(trigger) {
            mode = .buffered
            reason = "its driver, \(driver), answers raw reads while the buffer runs, so holding the buffer refuses nobody"
        } else if gyroscopeAlone {
            mode = .buffered
            reason = "a gyroscope on a device of its own, which nobody else is seen reading (iio-sensor-proxy reads no gyroscope, pollers read the accelerometer; a program holding its node would refuse the buffer with EBUSY, and it would be polled): its buffer is held while the device moves and a client listens"
        } else {
            reason = "its driver refuses raw reads while the buffer runs (EBUSY), so holding the buffer would make every other program's in_*_raw reads fail"
        }
    }

    /// One line for the log and `--list`: "polled beside iio-sensor-proxy (...): why".
    public var summary: String {
        "\(mode.rawValue)" + (neighbour.map { " beside \($0)" } ?? ", no other reader found") + ": \(reason)"
    }
}
