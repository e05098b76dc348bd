import Glibc
import RotationSystem

/// The attribute files of one IIO device, and where the kernel puts each value.
///
/// The IIO core names a channel's value by how the driver shares it (`__iio_device_attr_init` in
/// drivers/iio/industrialio-core.c): `in_accel_x_scale` for one channel, `in_accel_scale` for every channel of a
/// type, `in_scale` for every input channel, `scale` for the whole device. Drivers differ: cros-ec shares
/// `scale` and `sampling_frequency` by all, hid-sensor shares them by type, st_accel gives each axis its own
/// scale, bmc150 shares its frequency by type but lists the choices for the whole device. `locate` asks the
/// question every reader of a value needs answered ("where is the scale of accel_x?") the same way for all.
///
/// A snapshot of the directory, taken once per discovery: `buffer/`, `scan_elements/`, `trigger/` and `events/`
/// are listed too, as `buffer/enable` and so on.
struct DeviceFiles: Sendable {
    /// The IIO device id, such as `iio:device0`.
    let id: String
    /// Every file, relative to the device's directory.
    let names: Set<String>

    /// Lists `/sys/bus/iio/devices/<id>/` and its buffer, scan element, trigger and event directories.
    init(id: String) {
        self.id = id
        var names: Set<String> = []
        let top = SensorError.sysfsPath(id, "")
        for entry in DeviceFiles.entries(top) {
            if entry == "buffer" || entry == "scan_elements" || entry == "trigger" || entry == "events" {
                for inner in DeviceFiles.entries(top + entry) { names.insert(entry + "/" + inner) }
            } else {
                names.insert(entry)
            }
        }
        self.names = names
    }

    /// A snapshot with the given files, for tests.
    init(id: String, names: Set<String>) {
        self.id = id
        self.names = names
    }

    /// Whether the device has file `name` (such as `buffer/watermark`).
    func has(_ name: String) -> Bool { names.contains(name) }

    /// The file holding value `postfix` (`scale`, `sampling_frequency_available`...) of input channel type `type`
    /// (`accel`, `anglvel`), for axis `axis` or for the type as a whole: the most specific of
    /// `in_<type>_<axis>_<postfix>`, `in_<type>_<postfix>`, `in_<postfix>` and `<postfix>` that exists.
    func locate(_ postfix: String, type: String, axis: String? = nil) -> String? {
        var candidates: [String] = []
        if let axis { candidates.append("in_\(type)_\(axis)_\(postfix)") }
        candidates += ["in_\(type)_\(postfix)", "in_\(postfix)", postfix]
        return candidates.first { names.contains($0) }
    }

    /// The sysfs path of file `name`.
    func path(_ name: String) -> String { SensorError.sysfsPath(id, name) }

    /// A file's text without the kernel's trailing newline; nil when it cannot be read.
    func read(_ name: String) -> String? {
        guard let text = try? TextFile.read(path(name)) else { return nil }
        return String(text.trimmedSysfs)
    }

    /// The directory of the device the IIO device hangs off (an I2C client, a HID sensor, the EC's sensor hub),
    /// as the link `/sys/bus/iio/devices/<id>` says; a trigger a driver registers for its own device has the
    /// same parent (`devm_iio_trigger_alloc(parent, ...)`).
    static func parent(of id: String) -> String? {
        let link = "/sys/bus/iio/devices/\(id)"
        var target = [CChar](repeating: 0, count: 4096)
        let n = readlink(link, &target, target.count - 1)
        guard n > 0 else { return nil }
        let text = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = text.lastIndex(of: "/") else { return nil }
        return String(text[..<slash])
    }

    /// The names in `directory`, without "." and "..", in the order listed; none when it cannot be read.
    static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }
}
