import RotationProtocol

/// A camera as the service publishes it, with the detail of where its values came from.
public struct ListedCamera: Sendable, Hashable {
    /// The camera as it goes on the wire.
    public var camera: Camera
    /// What the system found, when the camera was found rather than only configured.
    public var found: DiscoveredCamera?
    /// The property, control, rule or option that gave the facing.
    public var facingDetail: String
    /// The property, control or option that gave the mount.
    public var mountDetail: String

    /// Human-readable lines for `rotationd --list`: a heading line, then indented details.
    public var listing: String {
        let c = camera
        var head = "camera \(c.name): \(c.device ?? "no device")"
        if let model = c.model { head += ", \(model)" }
        head += found.map { " (\($0.kind.rawValue))" } ?? " (configured)"
        let source = c.source ?? .default
        var lines = [head,
                     "  facing: \(c.facing.rawValue) (source \(source.facing.rawValue): \(facingDetail))",
                     "  mount: \(c.mount)° (source \(source.mount.rawValue): \(mountDetail))"]
        if let f = found {
            lines.append("  libcamera: " + (c.libcamera.map { "\($0) (\(f.libcameraDetail))" } ?? f.libcameraDetail))
            lines.append("  bus path: " + (c.busPath.map { "\($0) (udev ID_PATH)" } ?? "none (udev gives no ID_PATH)"))
            lines.append("  capture nodes: " + (c.nodes.isEmpty ? f.nodesDetail : "\(c.nodes.joined(separator: " ")) (\(f.nodesDetail))"))
            lines.append("  infrared: \(c.infrared ? "yes, not for pictures" : "no") (\(f.infraredDetail))")
        } else {
            lines.append("  infrared: no (a configured camera without a device found)")
        }
        return lines.joined(separator: "\n")
    }
}
