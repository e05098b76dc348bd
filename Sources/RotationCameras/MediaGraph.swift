import CUDev
import CV4L2
import Glibc
import RotationSystem

/// The media controller graphs of the system's media devices (`/dev/mediaN`), read to find which capture
/// nodes a camera sensor's data reaches.
///
/// Each media device is opened read-only for `MEDIA_IOC_G_TOPOLOGY`, which reports its pads, interfaces and
/// links; opening a media device does not power anything up. No capture node is opened: a node's path and
/// capabilities come from udev by its device number.
struct MediaGraph: Sendable {
    /// A device number, `major:minor` as sysfs writes it.
    typealias DeviceNumber = String

    /// One media device's graph.
    struct Device: Sendable {
        /// The media device's node, such as `/dev/media0`.
        var node: String
        /// The entity each interface's device number belongs to.
        var entityOfInterface: [DeviceNumber: UInt32] = [:]
        /// The interface type of each entity that has a device node.
        var interfaceType: [UInt32: (type: UInt32, number: DeviceNumber)] = [:]
        /// Entity → the entities a data link leads to from one of its source pads.
        var downstream: [UInt32: Set<UInt32>] = [:]
    }

    /// The media devices read.
    var devices: [Device] = []
    /// What could not be read.
    var problems: [CameraError] = []

    /// Reads the graph of every media device udev knows.
    static func read(_ udev: OpaquePointer) -> MediaGraph {
        var graph = MediaGraph()
        guard let e = udev_enumerate_new(udev) else { return graph }
        defer { udev_enumerate_unref(e) }
        _ = udev_enumerate_add_match_subsystem(e, "media")
        _ = udev_enumerate_scan_devices(e)
        var nodes: [String] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let item = entry {
            entry = udev_list_entry_get_next(item)
            guard let path = udev_list_entry_get_name(item), let dev = udev_device_new_from_syspath(udev, path) else { continue }
            let device = VideoDevice(owning: dev)
            if let node = device.node { nodes.append(node) }
        }
        for node in nodes.sorted(by: DiscoveredCamera.precedes) {
            switch read(node: node) {
            case .success(let device): graph.devices.append(device)
            case .failure(let error): graph.problems.append(error)
            }
        }
        return graph
    }

    /// Reads one media device's graph.
    static func read(node: String) -> Result<Device, CameraError> {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.media(device: node, operation: "open", errno: .current)) }
        defer { close(fd) }
        var raw = rotationd_media_graph()
        guard rotationd_media_graph_read(fd, &raw) == 0 else {
            return .failure(.media(device: node, operation: "read the graph (MEDIA_IOC_G_TOPOLOGY) of", errno: .current))
        }
        defer { rotationd_media_graph_free(&raw) }
        var device = Device(node: node)
        var padEntity: [UInt32: (entity: UInt32, source: Bool)] = [:]
        for i in 0..<Int(raw.pad_count) {
            let pad = raw.pads[i]
            padEntity[pad.id] = (pad.entity, pad.flags & rotationd_media_pad_source != 0)
        }
        var interfaces: [UInt32: (type: UInt32, number: DeviceNumber)] = [:]
        for i in 0..<Int(raw.interface_count) {
            let intf = raw.interfaces[i]
            interfaces[intf.id] = (intf.type, "\(intf.major):\(intf.minor)")
        }
        for i in 0..<Int(raw.link_count) {
            let link = raw.links[i]
            switch link.flags & rotationd_media_link_type_mask {
            case rotationd_media_link_interface:
                guard let intf = interfaces[link.source] else { continue }
                device.entityOfInterface[intf.number] = link.sink
                device.interfaceType[link.sink] = intf
            case rotationd_media_link_data:
                // Every data link counts, enabled or not: a capture program enables the ones it uses.
                guard let from = padEntity[link.source], let to = padEntity[link.sink], from.source else { continue }
                device.downstream[from.entity, default: []].insert(to.entity)
            default:
                continue
            }
        }
        return .success(device)
    }

    /// The video nodes the data of the sub-device with device number `sensor` reaches, following data links
    /// through every entity in between and stopping at each video node; with the media device's node. Empty
    /// when no graph holds the sub-device.
    func videoNodes(from sensor: DeviceNumber) -> (media: String, nodes: [DeviceNumber])? {
        for device in devices {
            guard let start = device.entityOfInterface[sensor] else { continue }
            var seen: Set<UInt32> = [start]
            var queue = [start]
            var found: [DeviceNumber] = []
            while !queue.isEmpty {
                let entity = queue.removeFirst()
                for next in (device.downstream[entity] ?? []).sorted() where seen.insert(next).inserted {
                    if let intf = device.interfaceType[next], intf.type == rotationd_media_interface_v4l_video {
                        found.append(intf.number)
                    } else {
                        queue.append(next)
                    }
                }
            }
            return (device.node, found)
        }
        return nil
    }
}
