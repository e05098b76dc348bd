/// The id libcamera gives a camera (`Camera::id()`; PipeWire's `api.libcamera.path`), worked out from sysfs
/// by libcamera's own rules, so a program can tell which libcamera camera is which of rotationd's.
///
/// - A sensor (`CameraSensor`): the firmware node path of the sensor's device (the device its sub-device's
///   `device` link leads to), else, for a platform device, that device's path below `/sys/devices/`, a space
///   and the sensor model. Nothing else has an id.
/// - A UVC camera (libcamera's `uvcvideo` pipeline): the firmware node path of the nearest device above the
///   USB interface that has one (the controller, or the USB port when the firmware describes ports), `-`, the
///   interface's name without its bus number (`3-1.4:1.0` gives `1.4:1.0`), `-`, and the USB device's
///   `idVendor:idProduct`.
///
/// The firmware node path is the device-tree node of an `of_node` link, without the `/sys/firmware/devicetree`
/// prefix (`/base/soc/i2c@fdd40000/camera@10`), else the ACPI path in `firmware_node/path`
/// (`\_SB_.PCI0.I2C2.CAM0`).
enum LibcameraID {
    /// An id and how it was made, for `rotationd --list`.
    typealias Finding = (id: String?, detail: String)

    /// The firmware node path of the sysfs device directory `device`, with which of the two it is; nil when
    /// the firmware does not describe the device.
    static func firmwareNode(_ device: String) -> (path: String, kind: String)? {
        let ofNode = device + "/of_node"
        if SysfsPath.exists(ofNode) {
            guard let real = SysfsPath.resolve(ofNode) else { return nil }
            let prefix = "/sys/firmware/devicetree"
            return (real.hasPrefix(prefix) ? String(real.dropFirst(prefix.count)) : real, "device-tree node")
        }
        let acpi = device + "/firmware_node/path"
        if SysfsPath.exists(acpi) {
            guard let path = SysfsPath.firstLine(acpi) else { return nil }
            return (path, "ACPI path")
        }
        return nil
    }

    /// The sensor model libcamera takes from an entity name: the part before the first space when the name
    /// holds an I2C bus and address (` 3-0010`), else the whole name.
    static func model(entityName name: String) -> String {
        let chars = Array(name.utf8)
        func isHex(_ c: UInt8) -> Bool { (0x30...0x39).contains(c) || (0x61...0x66).contains(c) }
        for (i, c) in chars.enumerated() where c == 0x20 {
            var j = i + 1
            while j < chars.count, (0x30...0x39).contains(chars[j]) { j += 1 }
            guard j > i + 1, j < chars.count, chars[j] == 0x2D else { continue }
            let hex = chars[(j + 1)...].prefix(4)
            if hex.count == 4 && hex.allSatisfy(isHex) {
                return String(name.prefix { $0 != " " })
            }
        }
        return name
    }

    /// The id of a sensor whose sub-device belongs to the sysfs device `device` and is named `entityName`.
    static func sensor(device: String, entityName: String) -> Finding {
        if let node = firmwareNode(device) { return (node.path, "the sensor's firmware node, its \(node.kind)") }
        let platform = "/sys/devices/platform/"
        if device.hasPrefix(platform) {
            return (String(device.dropFirst("/sys/devices/".count)) + " " + model(entityName: entityName),
                    "a platform device without a firmware node: its sysfs path and model")
        }
        return (nil, "none: \(device) has no firmware node (of_node or firmware_node/path) and is not a platform device")
    }

    /// The id of a UVC camera whose capture node belongs to the USB interface at sysfs path `interface`.
    static func uvc(interface: String) -> Finding {
        var search = interface
        var controller: (path: String, kind: String)?
        while controller == nil {
            guard let slash = search.lastIndex(of: "/"), search.distance(from: search.startIndex, to: slash) > 1 else {
                return (nil, "none: no device above \(interface) has a firmware node")
            }
            search = String(search[..<slash])
            controller = firmwareNode(search)
        }
        let name = SysfsPath.basename(interface)
        let port = name.firstIndex(of: "-").map { String(name[name.index(after: $0)...]) } ?? name
        guard let vendor = SysfsPath.firstLine(interface + "/../idVendor"),
              let product = SysfsPath.firstLine(interface + "/../idProduct") else {
            return (nil, "none: the USB device above \(interface) has no idVendor and idProduct")
        }
        let id = "\(controller!.path)-\(port)-\(vendor):\(product)"
        return (id, "UVC: the \(controller!.kind) of \(SysfsPath.basename(search)), USB port \(port), device \(vendor):\(product)")
    }
}
