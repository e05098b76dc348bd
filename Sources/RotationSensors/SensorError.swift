import RotationSystem

/// Why a sensor could not be found, read or captured from; each case names the file and the fix.
public enum SensorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libiio could not build a context from `/sys/bus/iio/devices`.
    case context(errno: Errno)
    /// A sysfs attribute or device node could not be read or written.
    case io(SystemError)
    /// A sysfs value is not what the kernel documents (empty, not a number, out of range).
    case badValue(path: String, value: String, expected: String)
    /// The device is no longer in `/sys/bus/iio/devices`.
    case gone(device: String)
    /// Buffered capture failed in a way that polling cannot replace.
    case buffer(device: String, operation: String, errno: Errno)
    /// The device's event interface (`IIO_GET_EVENT_FD_IOCTL` on `/dev/iio:deviceN`, or a read of the descriptor
    /// it gives) failed: the sensor is sampled at the still pace instead of watching for motion itself.
    case events(device: String, operation: String, errno: Errno)

    /// The fix for a failed access to a sysfs attribute or device node: only a permission problem has one.
    ///
    /// Reading `in_accel_*_raw` works for everyone on most drivers; writing attributes (sampling frequency,
    /// trigger, buffer) and reading `/dev/iio:deviceN` need root, or the user rotationd once udev has applied
    /// `60-rotationd.rules` to the device, which is how the rotationd service runs.
    public static func sysfsFix(_ errno: Errno) -> String? {
        errno.isPermission ? accessFix : nil
    }

    /// How to get access to a sensor or camera refused for lack of permission.
    public static let accessFix = "run rotationd as the user rotationd, as its systemd service does, once udev has "
        + "applied 60-rotationd.rules to the device (udevadm trigger), or as root"

    /// The sysfs path of attribute file `file` of IIO device `device`.
    public static func sysfsPath(_ device: String, _ file: String) -> String {
        "/sys/bus/iio/devices/\(device)/\(file)"
    }

    /// One line naming what failed and how to fix it.
    public var description: String {
        switch self {
        case .context(let e):
            return "cannot read the IIO devices in /sys/bus/iio/devices: \(e) (is sysfs mounted and the industrialio module loaded?)"
        case .io(let e):
            return e.description
        case .badValue(let path, let value, let expected):
            let shown = value.isEmpty ? "an empty value" : "\"\(value.prefix(40))\""
            return "\(path) holds \(shown), expected \(expected); the sensor driver reports garbage"
        case .gone(let device):
            return "sensor \(device) went away (no longer in /sys/bus/iio/devices)"
        case .buffer(let device, let operation, let e):
            var text = "cannot \(operation) the buffer of \(device) (/dev/\(device)): \(e)"
            if let fix = SensorError.sysfsFix(e) { text += " (\(fix))" }
            return text
        case .events(let device, let operation, let e):
            var text = "cannot \(operation) the events of \(device) (/dev/\(device)): \(e)"
            if let fix = SensorError.eventsFix(e) { text += " (\(fix))" }
            return text
        }
    }

    /// The fix for a failed access to a device's event interface.
    static func eventsFix(_ errno: Errno) -> String? {
        switch errno {
        case .busy: return "another program holds its event descriptor, and the kernel gives out one at a time: stop it (another rotationd, or a test tool such as iio_event_monitor)"
        case .noDevice: return "the driver registered no events for this device"
        case .inappropriateIOCTL, .invalidArgument: return "the kernel does not answer IIO_GET_EVENT_FD_IOCTL on this node"
        default: return sysfsFix(errno)
        }
    }

    /// True when retrying cannot help until the user acts (a permission problem).
    public var isPermission: Bool {
        switch self {
        case .io(let e): return e.errno.isPermission
        case .buffer(_, _, let e), .events(_, _, let e): return e.isPermission
        default: return false
        }
    }
}
