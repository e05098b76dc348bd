import CUDev
import RotationProtocol

/// Finds cameras through udev and sysfs, and reads where each sits.
///
/// A camera is a `video4linux` node whose udev `ID_V4L_CAPABILITIES` contains `:capture:` (a metadata,
/// output or codec node does not), or a sensor sub-device (`v4l-subdevN`) that carries
/// `V4L2_CID_CAMERA_ORIENTATION`. The rules for facing and mount, first found
/// wins, are in `Docs/cameras.md`:
///
/// - facing: the udev property `ROTATIOND_CAMERA_FACING` (a local hwdb quirk); the sensor's
///   `V4L2_CID_CAMERA_ORIENTATION`; udev `ID_CAMERA_DIRECTION` (front, rear); a USB camera on a port whose
///   `removable` attribute says `fixed` is front; otherwise external.
/// - mount: `ROTATIOND_CAMERA_MOUNT` (a local hwdb quirk); the sensor's `V4L2_CID_CAMERA_SENSOR_ROTATION` R,
///   a counter-clockwise correction, so (360 − R) mod 360; otherwise 0.
///
/// Capture nodes are never opened; sub-devices only to read those two controls.
public enum CameraDiscovery {
    /// What discovery looks for, for messages when nothing is found.
    public static let lookingFor =
        "video4linux capture nodes (udev ID_V4L_CAPABILITIES with :capture:) and camera sensor sub-devices with V4L2_CID_CAMERA_ORIENTATION"

    /// The udev property a local hwdb quirk sets to correct the facing: `front`, `back` or `external`.
    public static let facingProperty = "ROTATIOND_CAMERA_FACING"
    /// The udev property a local hwdb quirk sets to correct the mount: 0, 90, 180 or 270.
    public static let mountProperty = "ROTATIOND_CAMERA_MOUNT"
    /// The udev property a local hwdb quirk sets for a camera on a convertible's base: `base` (or `lid`, the
    /// default).
    public static let panelProperty = "ROTATIOND_CAMERA_PANEL"
    /// The udev property a local hwdb quirk sets for a camera that sees infrared only: `1` (or `0` to correct a
    /// wrong `ID_INFRARED_CAMERA`).
    public static let infraredProperty = "ROTATIOND_CAMERA_INFRARED"

    /// Looks at every `video4linux` device once.
    public static func scan() -> CameraInventory {
        guard let udev = udev_new() else {
            var inventory = CameraInventory()
            inventory.problems.append(.udev(what: "read udev's device database"))
            return inventory
        }
        defer { udev_unref(udev) }
        return assemble(enumerate(udev).map(\.finding), udev: udev)
    }

    /// The inventory of what each device turned out to be, with `extra` among the problems. When there are
    /// camera sensors, the media graphs give each one the capture nodes its data reaches, and a capture node
    /// that a listed sensor's data reaches is that sensor's, not a camera of its own.
    static func assemble(_ findings: [Finding], udev: OpaquePointer, extra: CameraError? = nil) -> CameraInventory {
        var inventory = CameraInventory()
        for finding in findings { inventory.add(finding) }
        if let extra { inventory.problems.append(extra) }
        if inventory.cameras.contains(where: { $0.kind == .sensor }) {
            let graph = MediaGraph.read(udev)
            inventory.problems += graph.problems
            var owner: [String: [String]] = [:] // capture node → the sensors whose data reaches it
            for i in inventory.cameras.indices where inventory.cameras[i].kind == .sensor {
                let sensor = inventory.cameras[i]
                guard let number = sensor.number, let reached = graph.videoNodes(from: number) else {
                    inventory.cameras[i].nodesDetail = "none: no media graph holds \(sensor.device)"
                    continue
                }
                var nodes: [String] = []
                for number in reached.nodes {
                    guard let video = VideoDevice.withNumber(number, udev: udev), let path = video.node,
                          video.property("ID_V4L_CAPABILITIES")?.contains(":capture:") == true else { continue }
                    guard Camera.isValidNode(path), nodes.count < Camera.maxNodes else {
                        inventory.problems.append(.unpublishable(device: sensor.device, what: "capture node", value: path,
                                                                 limit: "at most \(Camera.maxNodes) nodes of at most \(Camera.maxNodeBytes) bytes"))
                        continue
                    }
                    nodes.append(path)
                    owner[path, default: []].append(sensor.device)
                }
                nodes.sort(by: DiscoveredCamera.precedes)
                inventory.cameras[i].nodes = nodes
                inventory.cameras[i].nodesDetail = nodes.isEmpty
                    ? "none: in the media graph of \(reached.media) its data reaches no capture node"
                    : "the media graph of \(reached.media)"
            }
            let absorbed = inventory.cameras.filter { $0.kind == .captureNode && owner[$0.device] != nil }
            inventory.cameras.removeAll { $0.kind == .captureNode && owner[$0.device] != nil }
            for node in absorbed {
                let sensors = owner[node.device]!
                let whose = sensors.count == 1 ? "camera sensor \(sensors[0])" : "camera sensors \(sensors.joined(separator: " and "))"
                inventory.ignored.append(.init(device: node.device, reason: "the capture node of \(whose) (media graph), listed with it"))
            }
        }
        inventory.sort()
        return inventory
    }

    /// What one device turned out to be.
    struct Finding: Sendable, Hashable {
        var camera: DiscoveredCamera?
        var ignored: CameraInventory.Ignored?
        var problems: [CameraError] = []
    }

    /// Describes every `video4linux` device udev knows.
    static func enumerate(_ udev: OpaquePointer) -> [(syspath: String, finding: Finding)] {
        guard let e = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(e) }
        _ = udev_enumerate_add_match_subsystem(e, "video4linux")
        _ = udev_enumerate_scan_devices(e)
        var out: [(String, Finding)] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let item = entry {
            entry = udev_list_entry_get_next(item)
            guard let path = udev_list_entry_get_name(item),
                  let dev = udev_device_new_from_syspath(udev, path) else { continue }
            let device = VideoDevice(owning: dev)
            out.append((device.syspath, describe(device)))
        }
        return out
    }

    /// Decides whether `device` is a camera, and reads its facing, mount, node and model.
    static func describe(_ device: VideoDevice) -> Finding {
        var finding = Finding()
        guard let node = device.node else {
            finding.ignored = .init(device: device.syspath, reason: "it has no device node")
            return finding
        }
        guard let (kind, controls) = classify(device, node: node, finding: &finding) else { return finding }
        guard Camera.isValidDevice(node) else {
            finding.problems.append(.badPath(device: node))
            finding.ignored = .init(device: node, reason: "its path cannot be published")
            return finding
        }
        let (facing, facingSource, facingDetail) = self.facing(device, node: node, controls: controls, problems: &finding.problems)
        let (mount, mountSource, mountDetail) = self.mount(device, node: node, controls: controls, problems: &finding.problems)
        let model = kind == .sensor ? device.attribute("name") : (device.property("ID_V4L_PRODUCT") ?? device.attribute("name"))
        let names = publishedNames(device, node: node, kind: kind, problems: &finding.problems)
        var nodes: [String] = []
        var nodesDetail = "not read yet"
        if kind == .captureNode {
            nodes = Camera.isValidNode(node) ? [node] : []
            nodesDetail = nodes.isEmpty ? "none: the path is longer than \(Camera.maxNodeBytes) bytes" : "the camera's own node"
        }
        var camera = DiscoveredCamera(syspath: device.syspath, device: node, links: device.links, kind: kind,
                                      model: model.map(bounded), facing: facing, mount: mount,
                                      sources: Camera.Sources(facing: facingSource, mount: mountSource),
                                      facingDetail: facingDetail, mountDetail: mountDetail,
                                      libcamera: names.libcamera, libcameraDetail: names.libcameraDetail,
                                      busPath: names.busPath, nodes: nodes, nodesDetail: nodesDetail)
        camera.number = device.number
        if let p = panel(device, node: node, problems: &finding.problems) { camera.panel = p }
        (camera.infrared, camera.infraredDetail) = infrared(device, node: node, problems: &finding.problems)
        finding.camera = camera
        return finding
    }

    /// Whether `device` (its node `node`) can be a camera: a camera sensor's sub-device, with its controls, or a
    /// capture node. Nil, with why it is not one in `finding`, for anything else.
    private static func classify(_ device: VideoDevice, node: String,
                                 finding: inout Finding) -> (DiscoveredCamera.Kind, SensorControls)? {
        guard device.sysname.hasPrefix("v4l-subdev") else {
            guard let caps = device.property("ID_V4L_CAPABILITIES") else {
                finding.ignored = .init(device: node, reason: "udev gives no ID_V4L_CAPABILITIES")
                return nil
            }
            guard caps.split(separator: ":").contains("capture") else {
                finding.ignored = .init(device: node, reason: "not a capture node (ID_V4L_CAPABILITIES=\(caps))")
                return nil
            }
            return (.captureNode, SensorControls())
        }
        switch SensorControls.read(node) {
        case .failure(let error):
            finding.problems.append(error)
            finding.ignored = .init(device: node, reason: "its controls cannot be read")
            return nil
        case .success(let read):
            guard read.orientation != nil else {
                finding.ignored = .init(device: node, reason: "a sub-device without V4L2_CID_CAMERA_ORIENTATION, so not a camera sensor")
                return nil
            }
            return (.sensor, read)
        }
    }

    /// The libcamera id (with the detail `--list` shows) and the udev `ID_PATH` of `device`, each nil when it
    /// cannot be published (said in `problems`).
    private static func publishedNames(_ device: VideoDevice, node: String, kind: DiscoveredCamera.Kind, problems: inout [CameraError])
        -> (libcamera: String?, libcameraDetail: String, busPath: String?) {
        var (libcamera, libcameraDetail) = self.libcamera(device, kind: kind)
        if let id = libcamera, !Camera.isValidLibcameraID(id) {
            problems.append(.unpublishable(device: node, what: "libcamera id", value: id,
                                           limit: "at most \(Camera.maxLibcameraJSONBytes) bytes as a JSON string, no control characters"))
            libcamera = nil
        }
        var busPath = device.property("ID_PATH")
        if let path = busPath, !Camera.isValidBusPath(path) {
            problems.append(.unpublishable(device: node, what: "udev ID_PATH", value: path,
                                           limit: "at most \(Camera.maxBusPathBytes) bytes without spaces, quotes, backslashes or control characters"))
            busPath = nil
        }
        return (libcamera, libcameraDetail, busPath)
    }

    /// The panel the udev property `panelProperty` puts the camera on; nil without one, or with a value that is
    /// neither (said in `problems`).
    private static func panel(_ device: VideoDevice, node: String, problems: inout [CameraError]) -> CameraPanel? {
        guard let value = device.property(panelProperty) else { return nil }
        if let p = CameraPanel(rawValue: value) { return p }
        problems.append(.badProperty(device: node, key: panelProperty, value: value, expected: "lid or base"))
        return nil
    }

    /// Whether the camera sees infrared only, and the detail `--list` shows: the local quirk
    /// `ROTATIOND_CAMERA_INFRARED`, else systemd's `ID_INFRARED_CAMERA`, each `1` or `0`; else not infrared. Never
    /// from the node itself, which would have to be opened.
    package static func infrared(_ device: some CameraProperties, node: String, problems: inout [CameraError]) -> (Bool, String) {
        for (key, origin) in [(infraredProperty, "a local hwdb quirk"), ("ID_INFRARED_CAMERA", "systemd's 70-cameras.hwdb")] {
            guard let value = device.property(key) else { continue }
            switch value {
            case "1": return (true, "udev \(key)=1, \(origin)")
            case "0": return (false, "udev \(key)=0, \(origin)")
            default: problems.append(.badProperty(device: node, key: key, value: value, expected: "1 or 0"))
            }
        }
        return (false, "nothing says so")
    }

    /// The id libcamera gives the camera at `device`, and how it was made (`LibcameraID`).
    static func libcamera(_ device: VideoDevice, kind: DiscoveredCamera.Kind) -> LibcameraID.Finding {
        guard let physical = device.physicalDevice else { return (nil, "none: the node has no parent device") }
        switch kind {
        case .sensor:
            return LibcameraID.sensor(device: physical, entityName: device.attribute("name") ?? "")
        case .captureNode:
            // libcamera's uvcvideo pipeline: a node of a USB Video Class interface that uvcvideo drives. When udev
            // does not say what the parent is, a USB device's idVendor above it is enough.
            let usb = device.usbInterface
            if let driver = usb?.driver, driver != "uvcvideo" {
                return (nil, "none: libcamera takes capture nodes only from UVC cameras, and this one's driver is \(driver)")
            }
            if usb?.driver == nil, let c = usb?.interfaceClass, c.lowercased() != "0e" {
                return (nil, "none: libcamera takes capture nodes only from UVC cameras, and this one's interface class is \(c), not 0e (video)")
            }
            guard usb != nil || SysfsPath.exists(physical + "/../idVendor") else {
                return (nil, "none: libcamera takes capture nodes only from UVC cameras, and this one is not on USB")
            }
            return LibcameraID.uvc(interface: physical)
        }
    }

    /// The facing, where it came from and the detail `--list` shows, from the first source that says (the
    /// order is on the type); a value a source gives that is not understood is a problem, and the next source
    /// is asked.
    package static func facing(_ device: some CameraProperties, node: String, controls: SensorControls,
                               problems: inout [CameraError]) -> (CameraFacing, CameraValueSource, String) {
        if let value = device.property(facingProperty) {
            if let f = CameraFacing(rawValue: value) { return (f, .quirk, "udev \(facingProperty)=\(value), a local hwdb quirk") }
            problems.append(.badProperty(device: node, key: facingProperty, value: value, expected: "front, back or external"))
        }
        if let value = controls.orientation {
            if let f = SensorControls.facing(orientation: value) {
                return (f, .sensor, "V4L2_CID_CAMERA_ORIENTATION=\(value) (\(f.rawValue))")
            }
            problems.append(.badControl(device: node, control: "V4L2_CID_CAMERA_ORIENTATION", value: value,
                                        expected: "0 (front), 1 (back) or 2 (external)"))
        }
        if let value = device.property("ID_CAMERA_DIRECTION") {
            switch value {
            case "front": return (.front, .udev, "ID_CAMERA_DIRECTION=front")
            case "rear": return (.back, .udev, "ID_CAMERA_DIRECTION=rear")
            default:
                problems.append(.badProperty(device: node, key: "ID_CAMERA_DIRECTION", value: value, expected: "front or rear"))
            }
        }
        if let port = device.usbPort {
            if port.removable == "fixed" {
                return (.front, .usbPort, "USB device \(port.name) sits on a fixed port (removable=fixed), so it is built in")
            }
            return (.external, .default, "USB device \(port.name) on a port that is not fixed (removable=\(port.removable ?? "not reported"))")
        }
        return (.external, .default, "nothing reports it")
    }

    /// The mount, where it came from and the detail `--list` shows, as `facing` finds the facing.
    package static func mount(_ device: some CameraProperties, node: String, controls: SensorControls,
                              problems: inout [CameraError]) -> (Int, CameraValueSource, String) {
        if let value = device.property(mountProperty) {
            if let m = Int(value), m % 90 == 0 { return (Camera.wrap(m), .quirk, "udev \(mountProperty)=\(value), a local hwdb quirk") }
            problems.append(.badProperty(device: node, key: mountProperty, value: value, expected: "0, 90, 180 or 270"))
        }
        if let r = controls.rotation {
            if r % 90 == 0 && r >= 0 && r < 360 {
                return (Camera.mount(sensorRotation: r), .sensor,
                        "V4L2_CID_CAMERA_SENSOR_ROTATION=\(r), a counter-clockwise correction")
            }
            problems.append(.badControl(device: node, control: "V4L2_CID_CAMERA_SENSOR_ROTATION", value: r,
                                        expected: "0, 90, 180 or 270"))
        }
        return (0, .default, "nothing reports it")
    }

    /// `text` with control characters as spaces, cut so that as a JSON string it takes at most
    /// `Camera.maxModelJSONBytes` bytes.
    package static func bounded(_ text: String) -> String {
        var out = ""
        var quoted = 2
        for u in text.unicodeScalars {
            let scalar: Unicode.Scalar = u.value < 0x20 || u.value == 0x7F ? " " : u
            let cost = scalar == "\"" || scalar == "\\" ? 2 : String(scalar).utf8.count
            if quoted + cost > Camera.maxModelJSONBytes { break }
            quoted += cost
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
