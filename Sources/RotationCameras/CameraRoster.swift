import RotationProtocol

/// Turns what discovery found into the published camera list: configuration first, names that stay put.
///
/// - A camera from `rotationd --camera` that gives a device matches the found camera with that node (or one of
///   its udev links or capture nodes); one without a device matches the found camera of the same name. Either
///   way its facing and mount win, and the node, model, libcamera id, bus path and capture nodes come from what
///   was found. A configured camera that matches nothing
///   is listed as configured.
/// - A found camera is named after its facing: `front`, `back` or `external`, then `front2`, `front3` and so
///   on. It keeps its name for as long as it stays plugged in, whatever comes and goes around it; names that
///   configured cameras with a device hold are not given out.
/// - Configured cameras come first, in the order given, then the found ones in device order, at most
///   `Camera.maxCount` in all.
///
/// A value, with no I/O: the camera input keeps one and feeds it each inventory.
public struct CameraRoster: Sendable {
    /// The cameras from `rotationd --camera`.
    public let configured: [Camera]
    /// The name each found camera was given, by sysfs path.
    private var names: [String: String] = [:]

    /// Creates a roster over the configured cameras (at most `Camera.maxCount`).
    public init(configured: [Camera]) { self.configured = configured }

    /// The published list for `found`, and the found cameras that did not fit.
    public mutating func list(_ found: [DiscoveredCamera]) -> (cameras: [ListedCamera], left: [DiscoveredCamera]) {
        var claimedBy = deviceClaims(found) // found index → configured index
        let unclaimed = found.indices.filter { claimedBy[$0] == nil }
        let given = givenNames(unclaimed, of: found)
        // Configured cameras without a device claim the found camera of their name.
        for (ci, c) in configured.enumerated() where c.device == nil {
            if let fi = unclaimed.first(where: { given[$0] == c.name && claimedBy[$0] == nil }) { claimedBy[fi] = ci }
        }
        var listed = configuredCameras(found, claimedBy: claimedBy)
        var left: [DiscoveredCamera] = []
        var kept: [String: String] = [:]
        for fi in unclaimed where claimedBy[fi] == nil {
            let f = found[fi]
            guard listed.count < Camera.maxCount else {
                left.append(f)
                continue
            }
            let name = given[fi]!
            kept[f.syspath] = name
            listed.append(ListedCamera(
                camera: Camera(name: name, facing: f.facing, mount: f.mount, device: f.device, model: f.model, source: f.sources,
                               libcamera: f.libcamera, busPath: f.busPath, nodes: f.nodes, panel: f.panel,
                               infrared: f.infrared),
                found: f, facingDetail: f.facingDetail, mountDetail: f.mountDetail))
        }
        for (fi, _) in claimedBy { kept[found[fi].syspath] = given[fi] ?? names[found[fi].syspath] }
        names = kept
        return (listed, left)
    }

    /// The found camera each configured camera with a device claims: the one with that node, by found index.
    private func deviceClaims(_ found: [DiscoveredCamera]) -> [Int: Int] {
        var claimedBy: [Int: Int] = [:]
        for (ci, c) in configured.enumerated() {
            guard let device = c.device,
                  let fi = found.indices.first(where: { claimedBy[$0] == nil && found[$0].answers(to: device) }) else { continue }
            claimedBy[fi] = ci
        }
        return claimedBy
    }

    /// Names for the found cameras at `unclaimed`, by index: the one each had, else the first free one for its
    /// facing, leaving out the names configured cameras with a device hold.
    private func givenNames(_ unclaimed: [Int], of found: [DiscoveredCamera]) -> [Int: String] {
        var given: [Int: String] = [:]
        var used = Set(configured.filter { $0.device != nil }.map(\.name))
        for fi in unclaimed {
            if let name = names[found[fi].syspath], !used.contains(name) {
                given[fi] = name
                used.insert(name)
            }
        }
        for fi in unclaimed where given[fi] == nil {
            let base = found[fi].facing.rawValue
            var name = base, n = 2
            while used.contains(name) {
                name = base + String(n)
                n += 1
            }
            given[fi] = name
            used.insert(name)
        }
        return given
    }

    /// The configured cameras, in the order given, each with what was found of it (`claimedBy`: found index →
    /// configured index) or as configured.
    private func configuredCameras(_ found: [DiscoveredCamera], claimedBy: [Int: Int]) -> [ListedCamera] {
        configured.enumerated().map { ci, c in
            guard let fi = claimedBy.first(where: { $0.value == ci })?.key else {
                let missing = c.device.map { "; \($0) was not found" } ?? ""
                return ListedCamera(camera: c, found: nil, facingDetail: "rotationd --camera\(missing)",
                                    mountDetail: "rotationd --camera")
            }
            let f = found[fi]
            return ListedCamera(
                camera: Camera(name: c.name, facing: c.facing, mount: c.mount, device: f.device, model: f.model, source: .config,
                               libcamera: f.libcamera, busPath: f.busPath, nodes: f.nodes,
                               panel: c.panel == .base ? .base : f.panel, infrared: f.infrared),
                found: f,
                facingDetail: "rotationd --camera, over \(f.facing.rawValue) from source \(f.sources.facing.rawValue): \(f.facingDetail)",
                mountDetail: "rotationd --camera, over \(f.mount)° from source \(f.sources.mount.rawValue): \(f.mountDetail)")
        }
    }
}
