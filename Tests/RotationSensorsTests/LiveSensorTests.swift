import Foundation
import Testing
import TestSupport

/// The real `rotationd` against emulated IIO devices from `Tests/fixtures/*.umockdev`, by concern in
/// `LiveSensorTests+*.swift`: discovery, calibration, capture, the settings written and put back, convertibles,
/// hot-plug and faults, trace recording.
///
/// Each test drives the devices with `Tests/Testbed/umockdev-driver.py` and fails when an expected rotation is
/// not published in time, when another one is, or when the daemon exits.
@Suite("Live sensors under umockdev", .serialized)
struct LiveSensorTests {
    /// Each rotation as a state line publishes it.
    static let normal = "\"rotation\":0,"
    static let leftUp = "\"rotation\":90,"
    static let bottomUp = "\"rotation\":180,"
    static let rightUp = "\"rotation\":270,"
    /// Raw counts the fixtures these tests set them on read as right edge up.
    static let onda: [String: DriverJSON] = ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]
}
