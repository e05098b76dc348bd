import FuzzSupport
import RotationCameras
import RotationProtocol

/// Fuzzes how camera discovery reads a sensor sub-device's V4L2 controls, `V4L2_CID_CAMERA_ORIENTATION` and
/// `V4L2_CID_CAMERA_SENSOR_ROTATION`, whose values the driver (from firmware) chooses.
///
/// The input is read as a presence byte and two 32-bit values, the controls as the kernel returns them.
/// Checks: nothing traps; a value the kernel defines gives its facing and a mount of (360 − rotation) mod
/// 360, and any other value is a problem naming the control, with the default used instead.
@main
enum V4L2ControlsFuzz {
    static func main() { FuzzInput.main(test) }

    struct NoProperties: CameraProperties {
        func property(_ key: String) -> String? { nil }
        var usbPort: (name: String, removable: String?)? { nil }
    }

    static func test(_ bytes: [UInt8]) {
        var input = bytes[...]
        let present = input.popFirst() ?? 0
        func int32() -> Int? {
            guard input.count >= 4 else { return nil }
            let value = input.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            input = input.dropFirst(4)
            return Int(Int32(bitPattern: value))
        }
        let controls = SensorControls(orientation: present & 1 != 0 ? int32() : nil, rotation: present & 2 != 0 ? int32() : nil)
        var problems: [CameraError] = []
        let node = "/dev/v4l-subdev0"
        let (facing, facingSource, _) = CameraDiscovery.facing(NoProperties(), node: node, controls: controls, problems: &problems)
        let (mount, mountSource, _) = CameraDiscovery.mount(NoProperties(), node: node, controls: controls, problems: &problems)
        for p in problems { precondition(p.description.contains("V4L2_CID_CAMERA_"), "\(p)") }
        if let o = controls.orientation, let f = SensorControls.facing(orientation: o) {
            precondition(facing == f && facingSource == .sensor, "orientation \(o) gave \(facing)")
        } else {
            precondition(facingSource != .sensor, "orientation \(String(describing: controls.orientation)) gave \(facing) from the sensor")
        }
        if let r = controls.rotation, r % 90 == 0, (0..<360).contains(r) {
            precondition(mount == (360 - r) % 360 && mountSource == .sensor, "rotation \(r) gave mount \(mount)")
        } else {
            precondition(mount == 0 && mountSource == .default, "rotation \(String(describing: controls.rotation)) gave mount \(mount)")
        }
        precondition(problems.count == (controls.orientation.map { SensorControls.facing(orientation: $0) == nil ? 1 : 0 } ?? 0)
                     + (controls.rotation.map { $0 % 90 == 0 && (0..<360).contains($0) ? 0 : 1 } ?? 0), "\(problems)")
    }
}
