@testable import RotationSensors
import Testing

/// The table of drivers' motion events: which entry a device's files select, and the threshold each writes, in
/// its driver's unit, for the change a turn's start makes.
@Suite("Motion event drivers: layouts and units")
struct MotionEventDriverTests {
    static func files(_ events: [String]) -> DeviceFiles {
        DeviceFiles(id: "iio:device0", names: Set(["name", "in_accel_x_raw"] + events.map { "events/" + $0 }))
    }

    static func axes(_ pattern: String) -> [String] {
        ["x", "y", "z"].map { axis in String(pattern.map { $0 == "*" ? Character(axis) : $0 }) }
    }

    @Test("each driver's files select its entry: bmc150's roc_either, kxcjk-1013's thresh_either with a period, st_lsm6dsx's without one, inv_mpu6050's x|y|z channel, bmi323's shared mag_rising, mma8452's per-axis mag_rising enables with a shared value; a device without events, or with other events only, selects none")
    func layouts() {
        let cases: [([String], String?)] = [
            (Self.axes("in_accel_*_roc_either_en") + Self.axes("in_accel_*_roc_either_value") + Self.axes("in_accel_*_roc_either_period"), "bmc150-accel"),
            (Self.axes("in_accel_*_thresh_either_en") + Self.axes("in_accel_*_thresh_either_value") + Self.axes("in_accel_*_thresh_either_period"), "kxcjk-1013"),
            (Self.axes("in_accel_*_thresh_either_en") + Self.axes("in_accel_*_thresh_either_value"), "st_lsm6dsx"),
            (["in_accel_x|y|z_roc_rising_en", "in_accel_x|y|z_roc_rising_value"], "inv_mpu6050"),
            (["in_accel_mag_rising_en", "in_accel_mag_rising_value", "in_accel_mag_rising_period", "in_steps_change_en"], "bmi323"),
            (Self.axes("in_accel_*_mag_rising_en") + ["in_accel_mag_rising_value", "in_accel_scale"], "mma8452"),
            ([], nil),
            (["in_steps_change_en", "in_steps_change_value", "in_accel_gesture_singletap_en"], nil),
        ]
        for (events, driver) in cases {
            #expect(MotionEventDriver.matching(Self.files(events))?.driver == driver, "\(events)")
        }
    }

    static func entry(_ name: String) throws -> MotionEventDriver {
        try #require(MotionEventDriver.table.first { $0.driver == name })
    }

    @Test("the threshold for 8 m/s² per second is the change between two samples in each driver's unit: bmc150's range/512 (7 counts of 7.81 mg at 15.62 Hz), kxcjk-1013's 1/16 g, st_lsm6dsx's full scale/64, inv_mpu6050's m/s² per second, bmi323's g, mma8452's events/in_accel_scale")
    func thresholds() throws {
        #expect(try Self.entry("bmc150-accel").threshold(perSecond: 8, hz: 15.62, scale: 0.076614, bits: 10, step: nil) == "7")
        #expect(try Self.entry("kxcjk-1013").threshold(perSecond: 8, hz: 12.5, scale: 0.019163, bits: 12, step: nil) == "1")
        #expect(try Self.entry("st_lsm6dsx").threshold(perSecond: 8, hz: 12.5, scale: 0.000598205, bits: 16, step: nil) == "2")
        #expect(try Self.entry("inv_mpu6050").threshold(perSecond: 8, hz: 13, scale: 0.000598, bits: 16, step: nil) == "8.000000")
        #expect(try Self.entry("bmi323").threshold(perSecond: 8, hz: 12.5, scale: 0.002394, bits: 16, step: nil) == "0.065262")
        #expect(try Self.entry("mma8452").threshold(perSecond: 8, hz: 12.5, scale: 0.009577, bits: 12, step: 0.617742) == "1")
        // A 12-bit bmc150 at ±2 g counts 3.91 mg: 13 counts for the same change at 15.62 Hz.
        #expect(try Self.entry("bmc150-accel").threshold(perSecond: 8, hz: 15.62, scale: 0.009577, bits: 12, step: nil) == "13")
    }

    @Test("a threshold stays within the driver's range, at least one step; one counting a share of the full scale needs the resolution")
    func limits() throws {
        #expect(try Self.entry("st_lsm6dsx").threshold(perSecond: 1000, hz: 12.5, scale: 0.000598205, bits: 16, step: nil) == "31")
        #expect(try Self.entry("kxcjk-1013").threshold(perSecond: 0.1, hz: 50, scale: 0.019163, bits: 12, step: nil) == "1")
        #expect(try Self.entry("bmi323").threshold(perSecond: 1000, hz: 1, scale: 0.002394, bits: 16, step: nil) == "7.990000")
        #expect(try Self.entry("bmc150-accel").threshold(perSecond: 8, hz: 15.62, scale: 0.076614, bits: nil, step: nil) == nil)
    }
}
