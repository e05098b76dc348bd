import CUDev
import Glibc

/// One `video4linux` device as libudev sees it: its node, properties, attributes and USB parent.
///
/// Reads udev's database and sysfs only; it never opens the node. Not thread-safe: one thread owns it.
final class VideoDevice {
    private let device: OpaquePointer

    /// Takes over a reference the caller got from libudev.
    init(owning device: OpaquePointer) { self.device = device }

    deinit { udev_device_unref(device) }

    /// The sysfs path.
    var syspath: String { udev_device_get_syspath(device).map { String(cString: $0) } ?? "" }
    /// The kernel name, such as `video0` or `v4l-subdev3`.
    var sysname: String { udev_device_get_sysname(device).map { String(cString: $0) } ?? "" }
    /// The device node, such as `/dev/video0`, or nil when there is none: udev's `DEVNAME`, else
    /// `/dev/<kernel name>` when that exists (the kernel names video4linux nodes so; checked without opening it).
    var node: String? {
        if let name = udev_device_get_devnode(device) { return String(cString: name) }
        let guess = "/dev/" + sysname
        return !sysname.isEmpty && access(guess, F_OK) == 0 ? guess : nil
    }

    /// The links udev made to the node (its `DEVLINKS` property, which libudev also fills in from its database).
    var links: [String] {
        property("DEVLINKS").map { $0.split(separator: " ").map(String.init) } ?? []
    }

    /// udev property `key`, trimmed, or nil when unset or empty.
    func property(_ key: String) -> String? {
        udev_device_get_property_value(device, key).flatMap(VideoDevice.trimmed)
    }

    /// sysfs attribute `name`, trimmed, or nil when absent or empty.
    func attribute(_ name: String) -> String? {
        udev_device_get_sysattr_value(device, name).flatMap(VideoDevice.trimmed)
    }

    /// The USB device the node belongs to: its kernel name (such as `1-5`) and its `removable` attribute
    /// (`fixed`, `removable` or `unknown`; nil when the kernel does not say). nil when it is not on USB.
    var usbPort: (name: String, removable: String?)? {
        guard let usb = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device") else { return nil }
        let name = udev_device_get_sysname(usb).map { String(cString: $0) } ?? "?"
        return (name, udev_device_get_sysattr_value(usb, "removable").flatMap(VideoDevice.trimmed))
    }

    private static func trimmed(_ text: UnsafePointer<CChar>) -> String? {
        let s = String(cString: text)
        let t = s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        return t.isEmpty ? nil : String(t)
    }
}
