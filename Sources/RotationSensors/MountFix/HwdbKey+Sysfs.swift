import Glibc
import RotationSystem

extension HwdbKey {
    /// Where the machine's DMI modalias is.
    public static let dmiPath = "/sys/class/dmi/id/modalias"
    /// The buses 60-sensor.rules looks a sensor's parent up on (`SUBSYSTEMS=="usb|i2c|platform"`).
    public static let buses: Set<String> = ["usb", "i2c", "platform"]

    /// Why udev looks up no hwdb key for a sensor.
    public enum Missing: Error, Sendable, Hashable, CustomStringConvertible {
        /// No parent on one of `buses` has a modalias.
        case noBusParent(device: String, path: String)

        /// What is missing, and what that means for a fix.
        public var description: String {
            switch self {
            case .noBusParent(let device, let path):
                return "udev looks up no hwdb entry for \(device) (\(path)): none of its parent devices on a usb, i2c or platform bus has a modalias, and systemd's 60-sensor.rules matches only those; a mount matrix for it has to come from its driver (the device tree's mount-matrix property, or the ACPI table)"
            }
        }
    }

    /// The key of IIO device `id` (such as `iio:device0`), read from sysfs as 60-sensor.rules reads it: the
    /// device's `label`, `name` and `location`, the `modalias` of the device itself or else of its nearest parent
    /// on the usb, i2c or platform bus, and the machine's DMI modalias.
    public static func read(device id: String) throws(Missing) -> HwdbKey {
        let files = DeviceFiles(id: id)
        let path = devicePath(id)
        var modalias = files.read("modalias")
        var dir = path
        while modalias == nil, let slash = dir.lastIndex(of: "/"), dir[..<slash].count > "/sys/devices".count {
            dir = String(dir[..<slash])
            if buses.contains(subsystem(of: dir) ?? ""), let text = try? TextFile.read(dir + "/modalias") {
                modalias = String(text.trimmedSysfs)
            }
        }
        guard let modalias, !modalias.isEmpty else { throw .noBusParent(device: id, path: path) }
        let dmi = (try? TextFile.read(dmiPath)).map { String($0.trimmedSysfs) }
        return HwdbKey(label: files.read("label"), name: files.read("name") ?? "", location: files.read("location"),
                       modalias: modalias, dmi: dmi)
    }

    /// The device's directory under /sys/devices, from its link in /sys/bus/iio/devices.
    static func devicePath(_ id: String) -> String {
        guard let parent = DeviceFiles.parent(of: id) else { return "/sys/bus/iio/devices/\(id)" }
        var parts: [Substring] = parent.hasPrefix("/") ? [] : ["sys", "bus", "iio", "devices"]
        for part in parent.split(separator: "/") {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else if part != "." { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/") + "/" + id
    }

    /// The name of the bus or class a device directory's `subsystem` link points to, or nil.
    static func subsystem(of dir: String) -> String? {
        var target = [CChar](repeating: 0, count: 4096)
        let n = readlink(dir + "/subsystem", &target, target.count - 1)
        guard n > 0 else { return nil }
        let text = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "/").last.map(String.init)
    }
}
