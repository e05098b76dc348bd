import CV4L2
import Glibc
import RotationProtocol
import RotationSystem

/// The two V4L2 controls a camera sensor's sub-device carries about how it sits in the device.
///
/// Reading them opens the sub-device read-only just long enough for two ioctls per control (`VIDIOC_QUERYCTRL`
/// for presence, `VIDIOC_G_EXT_CTRLS` for the value). Only sub-devices are opened: a capture node never is,
/// since opening one can power a camera up.
package struct SensorControls: Sendable, Hashable {
    /// `V4L2_CID_CAMERA_ORIENTATION`: 0 front, 1 back, 2 external; nil when the sub-device lacks it.
    package var orientation: Int?
    /// `V4L2_CID_CAMERA_SENSOR_ROTATION`: the counter-clockwise correction in degrees; nil when lacking.
    package var rotation: Int?

    /// Controls with the given values; nil for a control the sub-device lacks.
    package init(orientation: Int? = nil, rotation: Int? = nil) {
        self.orientation = orientation
        self.rotation = rotation
    }

    /// The facing a `V4L2_CID_CAMERA_ORIENTATION` value stands for; nil for a value the kernel does not define.
    package static func facing(orientation value: Int) -> CameraFacing? {
        switch Int32(truncatingIfNeeded: value) {
        case rotationd_camera_orientation_front: return .front
        case rotationd_camera_orientation_back: return .back
        case rotationd_camera_orientation_external: return .external
        default: return nil
        }
    }

    /// Reads both controls of the sub-device at `node`.
    static func read(_ node: String) -> Result<SensorControls, CameraError> {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.controls(device: node, operation: "open", errno: .current)) }
        defer { close(fd) }
        var out = SensorControls()
        for (id, keyPath) in [(rotationd_cid_camera_orientation, \SensorControls.orientation),
                              (rotationd_cid_camera_sensor_rotation, \SensorControls.rotation)] {
            var flags: UInt32 = 0
            if rotationd_v4l2_query_control(fd, id, &flags) != 0 {
                let e = Errno.current
                // EINVAL: no such control; ENOTTY: no controls at all. Either way, it does not say.
                if e == .invalidArgument || e == .inappropriateIOCTL { continue }
                return .failure(.controls(device: node, operation: "query the controls of", errno: e))
            }
            if flags & rotationd_ctrl_flag_disabled != 0 { continue }
            var value: Int32 = 0
            guard rotationd_v4l2_read_control(fd, id, &value) == 0 else {
                return .failure(.controls(device: node, operation: "read the controls of", errno: .current))
            }
            out[keyPath: keyPath] = Int(value)
        }
        return .success(out)
    }
}
