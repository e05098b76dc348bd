import FuzzSupport
import RotationCameras
import RotationProtocol

/// Fuzzes how camera discovery reads udev property values (a local hwdb quirk's `ROTATIOND_CAMERA_FACING` and
/// `ROTATIOND_CAMERA_MOUNT`, `ID_CAMERA_DIRECTION`, a USB port's `removable`, the model and the node's path)
/// and publishes what it found.
///
/// The input is split at NUL bytes into those values, for up to nine cameras in turn; an empty value is an
/// unset property. Checks: nothing traps; the facing is one of the three and the mount a multiple of 90 in
/// 0..<360; a model written as JSON fits `Camera.maxModelJSONBytes`; and the state line that lists the
/// cameras fits the protocol's line limit and decodes to the same cameras.
@main
enum UdevPropertiesFuzz {
    static func main() { FuzzInput.main(test) }

    /// A device with the given properties.
    struct Device: CameraProperties {
        var properties: [String: String]
        var usbPort: (name: String, removable: String?)?
        func property(_ key: String) -> String? { properties[key] }
    }

    static let keys = [CameraDiscovery.facingProperty, CameraDiscovery.mountProperty, "ID_CAMERA_DIRECTION"]

    static func test(_ bytes: [UInt8]) {
        var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }[...]
        var found: [DiscoveredCamera] = []
        while !fields.isEmpty && found.count < Camera.maxCount + 1 {
            var properties: [String: String] = [:]
            for key in keys {
                if let value = fields.popFirst(), !value.isEmpty { properties[key] = value }
            }
            let removable = fields.popFirst()
            let port = removable.map { (name: "1-\(found.count + 1)", removable: $0.isEmpty ? nil : $0) }
            let model = fields.popFirst().map(CameraDiscovery.bounded)
            let node = fields.popFirst().flatMap { $0.isEmpty ? nil : $0 } ?? "/dev/video\(2 * found.count)"
            let device = Device(properties: properties, usbPort: port)
            var problems: [CameraError] = []
            let (facing, facingSource, facingDetail) = CameraDiscovery.facing(device, node: node, controls: SensorControls(), problems: &problems)
            let (mount, mountSource, mountDetail) = CameraDiscovery.mount(device, node: node, controls: SensorControls(), problems: &problems)
            for p in problems { _ = p.description }
            precondition(mount % 90 == 0 && (0..<360).contains(mount), "mount \(mount) from \(properties)")
            if let model {
                var quoted = ""
                JSONWriter.appendString(model, to: &quoted)
                precondition(quoted.utf8.count <= Camera.maxModelJSONBytes, "model \(quoted) is too long")
            }
            guard Camera.isValidDevice(node) else { continue }
            found.append(DiscoveredCamera(syspath: "/sys/devices/cam\(found.count)", device: node, kind: .captureNode,
                                          model: model, facing: facing, mount: mount,
                                          sources: Camera.Sources(facing: facingSource, mount: mountSource),
                                          facingDetail: facingDetail, mountDetail: mountDetail))
        }
        var roster = CameraRoster(configured: [])
        let cameras = roster.list(found).cameras.map(\.camera)
        precondition(cameras.count <= Camera.maxCount)
        let state = StateEvent(seq: 1, time: 1.5, state: .initial, cameras: cameras)
        let line = state.jsonLine
        precondition(line.utf8.count <= ClientCommand.maxLineBytes, "a state line of \(line.utf8.count) bytes")
        guard case .state(let decoded) = ServerMessage.decode(line) else { fatalError("\(line) does not decode") }
        precondition(decoded.cameras == cameras, "\(line) decodes to other cameras")
    }
}
