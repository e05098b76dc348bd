import Glibc
import CUDev

/// Reads udev properties of IIO devices, such as `ACCEL_MOUNT_MATRIX` from the systemd hwdb.
///
/// Not thread-safe: one thread owns an instance.
final class UDevDatabase {
    private let udev: OpaquePointer?

    init() { udev = udev_new() }

    deinit { if let udev { udev_unref(udev) } }

    /// Property `key` of the udev device with subsystem `iio` and sysname `id` (such as `iio:device0`),
    /// or nil when udev is unavailable, the device is unknown to it, or the property is unset.
    func property(_ key: String, device id: String) -> String? {
        guard let udev, let dev = udev_device_new_from_subsystem_sysname(udev, "iio", id) else { return nil }
        defer { udev_device_unref(dev) }
        return udev_device_get_property_value(dev, key).map { String(cString: $0) }
    }

    /// Every input device with a tablet-mode or lid switch (`SwitchDescription`), in node order: each `eventN`
    /// of the input subsystem whose parent's `capabilities/sw` names one, leaving out those whose node or parent
    /// is among `removed` (syspaths udev said were removed). Empty when udev is unavailable.
    func switches(leavingOut removed: Set<String> = []) -> [SwitchDescription] {
        guard let udev, let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        _ = udev_enumerate_add_match_subsystem(e, "input")
        _ = udev_enumerate_add_match_sysname(e, "event*")
        _ = udev_enumerate_scan_devices(e)
        var found: [SwitchDescription] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let item = entry {
            entry = udev_list_entry_get_next(item)
            guard let path = udev_list_entry_get_name(item), !removed.contains(String(cString: path)),
                  let dev = udev_device_new_from_syspath(udev, path) else { continue }
            defer { udev_device_unref(dev) }
            guard let parent = udev_device_get_parent(dev),
                  let parentPath = udev_device_get_syspath(parent).map({ String(cString: $0) }), !removed.contains(parentPath),
                  let node = udev_device_get_devnode(dev).map({ String(cString: $0) }),
                  let sysname = udev_device_get_sysname(dev).map({ String(cString: $0) }),
                  let capabilities = udev_device_get_sysattr_value(parent, "capabilities/sw").map({ String(cString: $0) })
            else { continue }
            let name = String((udev_device_get_sysattr_value(parent, "name").map { String(cString: $0) } ?? "an input device").trimmedSysfs)
            if SwitchDescription.isRotationdSwitch(syspath: parentPath, name: name) { continue }
            if let s = SwitchDescription(node: node, sysname: sysname, name: name, capabilities: capabilities) {
                found.append(s)
            }
        }
        return found.sorted { SensorDiscovery.deviceNumber($0.sysname) < SensorDiscovery.deviceNumber($1.sysname) }
    }
}
