import CUDev

/// Every device of some subsystems as udev's database knows it, with all its properties: what a bug report
/// shows a maintainer of each sensor and camera (the hwdb's `ACCEL_MOUNT_MATRIX`, `ACCEL_LOCATION`,
/// `ID_PATH`...), read through libudev as the sensors and cameras are.
public enum UDevListing {
    /// One block per device of `subsystems`, in the order given and by sysname within each: a line with its
    /// sysname, subsystem, syspath and `name` attribute, then one indented `KEY=value` line per property. Says so
    /// when udev is unavailable or a subsystem has no device.
    public static func text(subsystems: [String]) -> String {
        guard let udev = udev_new() else { return "udev is not available: no properties could be read\n" }
        defer { udev_unref(udev) }
        var text = ""
        for subsystem in subsystems {
            let blocks = devices(udev, subsystem)
            text += blocks.isEmpty ? "no \(subsystem) device\n\n" : blocks.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// The blocks of `subsystem`'s devices, sorted by the number in their sysname (iio:device2 before iio:device10),
    /// then by sysname.
    private static func devices(_ udev: OpaquePointer, _ subsystem: String) -> [String] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        _ = udev_enumerate_add_match_subsystem(e, subsystem)
        _ = udev_enumerate_scan_devices(e)
        var found: [(sysname: String, block: String)] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let item = entry {
            entry = udev_list_entry_get_next(item)
            guard let path = udev_list_entry_get_name(item), let dev = udev_device_new_from_syspath(udev, path) else { continue }
            defer { udev_device_unref(dev) }
            let sysname = udev_device_get_sysname(dev).map { String(cString: $0) } ?? "?"
            let name = udev_device_get_sysattr_value(dev, "name").map { " name \"\(String(cString: $0).trimmedSysfs)\"" } ?? ""
            var block = "\(sysname) (\(subsystem)) \(String(cString: path))\(name)\n"
            var property = udev_device_get_properties_list_entry(dev)
            while let p = property {
                property = udev_list_entry_get_next(p)
                guard let key = udev_list_entry_get_name(p) else { continue }
                block += "  \(String(cString: key))=\(udev_list_entry_get_value(p).map { String(cString: $0) } ?? "")\n"
            }
            found.append((sysname, block))
        }
        return found.sorted {
            let a = SensorDiscovery.deviceNumber($0.sysname), b = SensorDiscovery.deviceNumber($1.sysname)
            return a != b ? a < b : $0.sysname < $1.sysname
        }.map(\.block)
    }
}
