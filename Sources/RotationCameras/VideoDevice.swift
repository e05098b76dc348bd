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

    /// The device number as sysfs writes it (`81:3`, the `dev` attribute), or nil.
    var number: String? { attribute("dev") }

    /// The physical device the node belongs to (a sensor's I2C client, a webcam's USB interface), as a sysfs
    /// path without symbolic links: where the node's `device` link leads, the path libcamera starts from;
    /// without the link, the directory that holds the node's `video4linux` class directory, else the nearest
    /// parent device udev knows.
    var physicalDevice: String? {
        if let real = SysfsPath.resolve(syspath + "/device") { return real }
        let parts = syspath.split(separator: "/", omittingEmptySubsequences: false)
        if let i = parts.lastIndex(of: "video4linux"), i > 1 {
            let holder = parts[..<i].joined(separator: "/")
            return SysfsPath.resolve(holder) ?? holder
        }
        guard let parent = udev_device_get_parent(device) else { return nil }
        return udev_device_get_syspath(parent).map { String(cString: $0) }
    }

    /// The node's parent device when it is a USB interface: its kernel driver (`uvcvideo`), when known, and
    /// its `bInterfaceClass` (`0e` for the USB Video Class), when known; nil when the parent is not a USB
    /// interface.
    var usbInterface: (driver: String?, interfaceClass: String?)? {
        guard let parent = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_interface") else { return nil }
        let driver = udev_device_get_driver(parent).flatMap(VideoDevice.trimmed)
            ?? udev_device_get_property_value(parent, "DRIVER").flatMap(VideoDevice.trimmed)
        return (driver, udev_device_get_sysattr_value(parent, "bInterfaceClass").flatMap(VideoDevice.trimmed))
    }

    /// The `video4linux` device with device number `number` (`major:minor`), or nil.
    static func withNumber(_ number: String, udev: OpaquePointer) -> VideoDevice? {
        let parts = number.split(separator: ":")
        guard parts.count == 2, let major = UInt64(parts[0]), let minor = UInt64(parts[1]) else { return nil }
        // glibc's makedev().
        let dev = ((major & 0xFFFF_F000) << 32) | ((major & 0xFFF) << 8) | ((minor & 0xFFFF_FF00) << 12) | (minor & 0xFF)
        return udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), dev_t(dev)).map(VideoDevice.init(owning:))
    }

    private static func trimmed(_ text: UnsafePointer<CChar>) -> String? {
        let s = String(cString: text)
        let t = s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        return t.isEmpty ? nil : String(t)
    }
}
