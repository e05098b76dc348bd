import CIIO

/// How one kernel driver lets an accelerometer watch for motion itself: the files under `events/` that arm its
/// motion event, the unit of its threshold, and the driver's quirks, as read in the driver's source.
///
/// The capture never asks which driver it runs on: it finds the entry whose files the device has
/// (`matching(_:)`) and follows the entry's data. The IIO core names each file `in_<type>_<axis>_<event type>_
/// <direction>_<info>` from the driver's `iio_event_spec` (`iio_device_add_event` in
/// drivers/iio/industrialio-event.c): per axis for a `mask_separate` bit, without the axis for
/// `mask_shared_by_type`, with a modifier such as `x|y|z` for an event channel of its own.
struct MotionEventDriver: Sendable, Hashable {
    /// How a threshold in m/s² becomes the value the driver takes.
    enum Unit: Sendable, Hashable {
        /// Counts of a fraction of the full scale: one count is `scale × 2^(bits−1) / divisor` m/s², the full
        /// scale being what the largest reading of `bits` bits at the current `in_accel_scale` measures.
        case fullScale(divisor: Double)
        /// Counts of a fixed step in m/s², read from an attribute under `events/` when the driver has it.
        case counts(file: String?, step: Double)
        /// m/s² per second: the change between two samples times the sampling frequency.
        case perSecond
        /// Standard gravities (9.80665 m/s²).
        case g
    }

    /// What the driver does that the order of the writes must respect.
    enum Quirk: Sendable, Hashable {
        /// Threshold writes are refused (EBUSY) while the event is enabled: they go in before the enable, after
        /// disarming.
        case valueRefusedWhileEnabled
        /// Each write to the enable puts the driver's own threshold back: the threshold goes in after it.
        case enableResetsValue
        /// Disabling the buffer powers the accelerometer off, events or not, and an enable already set does not
        /// power it on again: arming writes 0 to every enable before 1.
        case bufferDisablePowersOff
    }

    /// The driver, for messages: `bmc150-accel`.
    var driver: String
    /// The file and functions the entry was read from.
    var source: String
    /// The enable files under `events/`, all written: 1 to arm, 0 to disarm.
    var enable: [String]
    /// The threshold files under `events/`, all written with the same value.
    var value: [String]
    /// The period (debounce) files under `events/` and the text written to them, when the entry sets one.
    var period: (files: [String], text: String)?
    /// Further files whose presence tells this driver's layout from another's with the same enables.
    var alsoPresent: [String]
    /// The unit of the threshold.
    var unit: Unit
    /// Whether the threshold is a whole number of counts (IIO_VAL_INT), else a decimal (IIO_VAL_INT_PLUS_MICRO).
    var integer: Bool
    /// The thresholds the driver takes; a value outside is EINVAL.
    var range: ClosedRange<Double>
    /// The event type the driver reports for motion (`enum iio_event_type`), whatever the direction.
    var eventType: UInt32
    /// What must be respected when writing.
    var quirks: Set<Quirk>

    static func == (a: MotionEventDriver, b: MotionEventDriver) -> Bool { a.driver == b.driver }
    func hash(into h: inout Hasher) { h.combine(driver) }

    /// Every file the entry reads or writes under `events/`, thresholds and periods first: `SensorSettings`
    /// writes them back in that order, before the enables.
    var files: [String] { value + (period?.files ?? []) + enable }

    /// The first entry whose files the device has (`events/...` in `files`).
    static func matching(_ files: DeviceFiles) -> MotionEventDriver? {
        table.first { entry in
            (entry.enable + entry.value + entry.alsoPresent).allSatisfy { files.has("events/" + $0) }
        }
    }

    private static func axes(_ pattern: String) -> [String] {
        ["x", "y", "z"].map { axis in String(pattern.map { $0 == "*" ? Character(axis) : $0 }) }
    }

    /// The drivers whose motion event rotationd uses. hid-sensor-accel-3d (its hub's hysteresis is firmware
    /// policy), mxc4005, st_accel and cros-ec have none.
    static let table: [MotionEventDriver] = [
        // Slope (any-motion) interrupt: the difference between two successive samples on any axis above the
        // threshold for period+1 samples. One state behind the three enables and one slope_thres behind the
        // three values; a threshold write while enabled is EBUSY; the event's direction is the slope's sign.
        // The threshold counts range/512 (3.91 mg at ±2 g, 7.81 mg at ±4 g), whatever the resolution.
        MotionEventDriver(
            driver: "bmc150-accel",
            source: "drivers/iio/accel/bmc150-accel-core.c: bmc150_accel_event, bmc150_accel_write_event, bmc150_accel_handle_roc_event",
            enable: axes("in_accel_*_roc_either_en"), value: axes("in_accel_*_roc_either_value"),
            period: (axes("in_accel_*_roc_either_period"), "0"), alsoPresent: [],
            unit: .fullScale(divisor: 512), integer: true, range: 1...255, eventType: IIO_EV_TYPE_ROC.rawValue,
            quirks: [.valueRefusedWhileEnabled]),
        // Wake-up function (WUF): the change on any axis above WAKEUP_THRESHOLD for wake_dur counts. One state
        // behind the three enables; a threshold write while enabled is EBUSY, and enabling writes the stored
        // threshold to the sensor (kxcjk1013_setup_any_motion_interrupt). The threshold counts 1/16 g whatever the
        // range (the sensors' data sheets: 16 counts per g).
        MotionEventDriver(
            driver: "kxcjk-1013",
            source: "drivers/iio/accel/kxcjk-1013.c: kxcjk1013_event, kxcjk1013_write_event, kxcjk1013_write_event_config",
            enable: axes("in_accel_*_thresh_either_en"), value: axes("in_accel_*_thresh_either_value"),
            period: nil, alsoPresent: axes("in_accel_*_thresh_either_period"),
            unit: .counts(file: nil, step: 9.80665 / 16), integer: true, range: 1...255,
            eventType: IIO_EV_TYPE_THRESH.rawValue, quirks: [.valueRefusedWhileEnabled]),
        // Wake-up: the high-passed acceleration on an enabled axis above WAKE_UP_THS, 0 to 31 counts of full
        // scale/64, one threshold for the three axes. Disabling the buffer sets the accelerometer's rate to 0
        // (st_lsm6dsx_sensor_set_enable), events or not, and enabling an axis while another is enabled changes
        // nothing (st_lsm6dsx_write_event_config).
        MotionEventDriver(
            driver: "st_lsm6dsx",
            source: "drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c: st_lsm6dsx_write_event, st_lsm6dsx_write_event_config; st_lsm6dsx.h: st_lsm6dsx_event",
            enable: axes("in_accel_*_thresh_either_en"), value: axes("in_accel_*_thresh_either_value"),
            period: nil, alsoPresent: [],
            unit: .fullScale(divisor: 64), integer: true, range: 1...31, eventType: IIO_EV_TYPE_THRESH.rawValue,
            quirks: [.bufferDisablePowersOff]),
        // Wake-on-motion (MPU-6500 and later, kernel 6.10): one event channel `x|y|z`, the threshold in m/s² per
        // second, turned into the sensor's 4 mg steps at the current rate (inv_mpu6050_convert_roc_to_wom). It
        // starts at 0, which fires on any change: it is written before enabling.
        MotionEventDriver(
            driver: "inv_mpu6050",
            source: "drivers/iio/imu/inv_mpu6050/inv_mpu_core.c: inv_wom_events, inv_mpu6050_write_event_value",
            enable: ["in_accel_x|y|z_roc_rising_en"], value: ["in_accel_x|y|z_roc_rising_value"],
            period: nil, alsoPresent: [],
            unit: .perSecond, integer: false, range: 0.001...1_000_000, eventType: IIO_EV_TYPE_ROC.rawValue,
            quirks: []),
        // Any-motion of the feature engine: the threshold in g (0 to 7.99 in 1/512 g), the duration in s (20 ms
        // steps). Each write to the enable sets the threshold to 1 g (bmi323_motion_event_en, "to avoid
        // interrupts while enabling"), so it is written after.
        MotionEventDriver(
            driver: "bmi323",
            source: "drivers/iio/imu/bmi323/bmi323_core.c: bmi323_accel_event, bmi323_motion_event_en, bmi323_write_event_value",
            enable: ["in_accel_mag_rising_en"], value: ["in_accel_mag_rising_value"],
            period: (["in_accel_mag_rising_period"], "0.020000"), alsoPresent: [],
            unit: .g, integer: false, range: 0.002...7.99, eventType: IIO_EV_TYPE_MAG.rawValue,
            quirks: [.enableResetsValue]),
        // Transient detection: the high-passed acceleration on an enabled axis above TRANSIENT_THS, 0 to 127
        // steps of 8 g/127 whatever the range, which the driver gives as events/in_accel_scale (0.617742). It
        // starts at 127 at probe ("to avoid events if enabling without configuring threshold").
        MotionEventDriver(
            driver: "mma8452",
            source: "drivers/iio/accel/mma8452.c: mma8452_transient_event, accel_transient_scale, mma8452_probe",
            enable: axes("in_accel_*_mag_rising_en"), value: ["in_accel_mag_rising_value"],
            period: nil, alsoPresent: [],
            unit: .counts(file: "in_accel_scale", step: 0.617742), integer: true, range: 1...127,
            eventType: IIO_EV_TYPE_MAG.rawValue, quirks: []),
    ]
}
