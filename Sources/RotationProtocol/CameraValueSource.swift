/// Where one of a camera's values (its facing or its mount) came from, as the `source` member names it.
///
/// An open set of names: a client decodes a name it does not know as it is, so a later service may add one.
public struct CameraValueSource: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire, such as `udev`.
    public let rawValue: String

    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `rotationd --camera`.
    public static let config = CameraValueSource(rawValue: "config")
    /// A local hwdb quirk: the udev property `ROTATIOND_CAMERA_FACING` or `ROTATIOND_CAMERA_MOUNT`.
    public static let quirk = CameraValueSource(rawValue: "quirk")
    /// The camera sensor's own V4L2 control: `V4L2_CID_CAMERA_ORIENTATION` or `V4L2_CID_CAMERA_SENSOR_ROTATION`.
    public static let sensor = CameraValueSource(rawValue: "sensor")
    /// The udev property `ID_CAMERA_DIRECTION`, set by the systemd hwdb.
    public static let udev = CameraValueSource(rawValue: "udev")
    /// A USB camera on a port whose `removable` attribute says `fixed`: built in, so it faces the user.
    public static let usbPort = CameraValueSource(rawValue: "usb-port")
    /// Nothing said anything: rotationd's default (external, mount 0; or the built-in pair of a replay).
    public static let `default` = CameraValueSource(rawValue: "default")

    /// The name.
    public var description: String { rawValue }
}
