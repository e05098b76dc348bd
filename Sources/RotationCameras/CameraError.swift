import RotationProtocol
import RotationSystem

/// Why a camera, or one of its values, could not be read; each case names the device and what to do.
public enum CameraError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sensor sub-device could not be opened, or its controls not read.
    case controls(device: String, operation: String, errno: Errno)
    /// A udev property holds a value rotationd does not understand; the next source is used instead.
    case badProperty(device: String, key: String, value: String, expected: String)
    /// A sensor control holds a value the kernel does not define; the next source is used instead.
    case badControl(device: String, control: String, value: Int, expected: String)
    /// The device path cannot be a camera's `device`: too long, or with characters JSON would escape.
    case badPath(device: String)
    /// More cameras than a state carries: this one is left out.
    case tooMany(device: String, limit: Int)
    /// udev cannot be read or watched.
    case udev(what: String)
    /// A media device could not be opened, or its graph not read.
    case media(device: String, operation: String, errno: Errno)
    /// A name of the camera is too long, or holds characters, for a state line: it is published as null.
    case unpublishable(device: String, what: String, value: String, limit: String)

    /// One line naming what failed and how to fix it.
    public var description: String {
        switch self {
        case .controls(let device, let operation, let e):
            var text = "cannot \(operation) \(device) to read its camera controls: \(e)"
            if e.isPermission {
                text += " (run rotationd as the user rotationd, as its systemd service does, once udev has applied "
                    + "60-rotationd.rules to the device (udevadm trigger), or as root)"
            }
            return text + "; it is not listed as a camera"
        case .badProperty(let device, let key, let value, let expected):
            return "\(device): ignoring udev \(key)=\"\(value.prefix(40))\", expected \(expected); check the hwdb entry that sets it (Docs/hwdb-quirks.md)"
        case .badControl(let device, let control, let value, let expected):
            return "\(device): ignoring \(control)=\(value), expected \(expected); the sensor driver or its firmware description reports garbage"
        case .badPath(let device):
            return "\(device.prefix(80)): a camera's device path must have at most \(Camera.maxDeviceBytes) bytes and no control characters, quotes or backslashes; it is not listed"
        case .tooMany(let device, let limit):
            return "\(device) is not listed: \(limit) cameras are listed already, the most a state carries"
        case .media(let device, let operation, let e):
            var text = "cannot \(operation) \(device): \(e)"
            if e.isPermission { text += " (run rotationd as root, as its systemd service does)" }
            return text + "; the capture nodes of the camera sensors it holds are not known"
        case .unpublishable(let device, let what, let value, let limit):
            return "\(device): its \(what) \"\(value.prefix(120))\" is not published (\(limit)); it is null on the wire"
        case .udev(let what):
            return "cannot \(what); cameras that appear or go away later are not noticed until rotationd restarts"
        }
    }
}
