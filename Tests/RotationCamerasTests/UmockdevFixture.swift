import Foundation
import TestSupport

/// The sysfs an umockdev file describes, read as text: each device's properties, attributes and links, and
/// the directories a test creates beside it. Tests work out from it what libcamera and udev would report
/// for a camera, independently of rotationd.
struct UmockdevFixture {
    struct Device {
        var properties: [String: String] = [:]
        var attributes: [String: String] = [:]
        var links: [String: String] = [:]
    }

    /// Devices by sysfs path (`/sys/devices/...`).
    var devices: [String: Device] = [:]
    /// Directories that exist besides the devices (such as device-tree nodes a test creates).
    var directories: Set<String> = []

    /// Reads the files `names` from Tests/fixtures.
    init(_ names: [String], directories: [String] = []) throws {
        for name in names {
            let text = try String(contentsOf: Testbed.root.appendingPathComponent("Tests/fixtures/\(name)"), encoding: .utf8)
            var path = ""
            for line in text.split(separator: "\n") {
                guard line.count > 3 else { continue }
                let tag = line.prefix(3), rest = String(line.dropFirst(3))
                let (key, value) = rest.firstIndex(of: "=").map { (String(rest[..<$0]), Self.unescape(String(rest[rest.index(after: $0)...]))) } ?? (rest, "")
                switch tag {
                case "P: ": path = "/sys" + rest; devices[path] = Device()
                case "E: ": devices[path]?.properties[key] = value
                case "A: ": devices[path]?.attributes[key] = value
                case "L: ": devices[path]?.links[key] = value
                default: break
                }
            }
        }
        self.directories = Set(directories)
    }

    /// umockdev's escapes: `\\` and `\n`.
    static func unescape(_ s: String) -> String {
        var out = "", escaped = false
        for c in s {
            if escaped {
                out.append(c == "n" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// `relative` resolved against the directory `base`, lexically.
    static func join(_ base: String, _ relative: String) -> String {
        var parts = base.split(separator: "/").map(String.init)
        for p in relative.split(separator: "/") {
            if p == ".." { parts.removeLast() } else if p != "." { parts.append(String(p)) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The sysfs path of the device whose node is `node`.
    func syspath(of node: String) -> String? {
        devices.first { $0.value.properties["DEVNAME"] == node }?.key
    }

    /// The first line of an attribute file, as the kernel (and umockdev) end it with a newline.
    func attribute(_ path: String, _ name: String) -> String? {
        devices[path]?.attributes[name].map { String($0.prefix { $0 != "\n" }) }
    }

    /// The device a node belongs to: where its `device` link leads, else the directory holding its
    /// `video4linux` directory.
    func physicalDevice(of node: String) -> String? {
        guard let path = syspath(of: node) else { return nil }
        if let link = devices[path]?.links["device"] { return Self.join(path, link) }
        let parts = path.split(separator: "/").map(String.init)
        guard let i = parts.lastIndex(of: "video4linux") else { return nil }
        return "/" + parts[..<i].joined(separator: "/")
    }

    /// The firmware node path of a device directory: the device-tree node its `of_node` link leads to (if
    /// that exists) without `/sys/firmware/devicetree`, else the ACPI path at `firmware_node/path`.
    func firmwareNode(_ dir: String) -> String? {
        if let link = devices[dir]?.links["of_node"] {
            let target = Self.join(dir, link)
            if directories.contains(target) {
                return target.hasPrefix("/sys/firmware/devicetree") ? String(target.dropFirst("/sys/firmware/devicetree".count)) : target
            }
        }
        if let link = devices[dir]?.links["firmware_node"] { return attribute(Self.join(dir, link), "path") }
        return attribute(dir, "firmware_node/path")
    }

    /// libcamera's id for the sensor whose sub-device is `node`: its device's firmware node, else for a
    /// platform device the path below /sys/devices and the model (the entity name before its first space
    /// when it holds an I2C address).
    func libcameraSensorID(_ node: String) -> String? {
        guard let device = physicalDevice(of: node), let path = syspath(of: node) else { return nil }
        if let firmware = firmwareNode(device) { return firmware }
        guard device.hasPrefix("/sys/devices/platform/") else { return nil }
        let name = attribute(path, "name") ?? ""
        let words = name.split(separator: " ")
        let i2c = words.dropFirst().contains { w in
            let halves = w.split(separator: "-")
            return halves.count == 2 && halves[0].allSatisfy(\.isNumber) && halves[1].count == 4
        }
        return String(device.dropFirst("/sys/devices/".count)) + " " + (i2c ? String(words[0]) : name)
    }

    /// libcamera's id for the UVC camera whose capture node is `node`: the firmware node of the first
    /// directory above its USB interface that has one, the interface name without the bus number, and the
    /// USB device's vendor and product ids.
    func libcameraUVCID(_ node: String) -> String? {
        guard let interface = physicalDevice(of: node) else { return nil }
        var dir = interface
        var controller: String?
        while controller == nil {
            dir = (dir as NSString).deletingLastPathComponent
            if dir == "/" { return nil }
            controller = firmwareNode(dir)
        }
        let usbDevice = (interface as NSString).deletingLastPathComponent
        let name = (interface as NSString).lastPathComponent
        guard let dash = name.firstIndex(of: "-"), let vendor = attribute(usbDevice, "idVendor"),
              let product = attribute(usbDevice, "idProduct") else { return nil }
        return "\(controller!)-\(name[name.index(after: dash)...])-\(vendor):\(product)"
    }
}
