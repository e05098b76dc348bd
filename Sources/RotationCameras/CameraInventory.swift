/// What one look at the system found: the cameras, the video4linux nodes that are not cameras and why, and
/// the problems met on the way.
public struct CameraInventory: Sendable, Hashable {
    /// A `video4linux` node that is not a camera.
    public struct Ignored: Sendable, Hashable {
        /// The device node, or the sysfs path when there is none.
        public var device: String
        /// Why it is not a camera.
        public var reason: String
    }

    /// The cameras, in device order (`/dev/video2` before `/dev/video10`).
    public var cameras: [DiscoveredCamera] = []
    /// The other nodes, in device order.
    public var ignored: [Ignored] = []
    /// What could not be read; each says what was done instead.
    public var problems: [CameraError] = []

    /// An empty inventory.
    public init() {}

    /// Puts the parts in device order, and the problems in the order of their text.
    mutating func sort() {
        cameras.sort { DiscoveredCamera.precedes($0.device, $1.device) }
        ignored.sort { DiscoveredCamera.precedes($0.device, $1.device) }
        problems.sort { $0.description < $1.description }
    }

    /// Adds what one device turned out to be.
    mutating func add(_ finding: CameraDiscovery.Finding) {
        if let camera = finding.camera { cameras.append(camera) }
        if let node = finding.ignored { ignored.append(node) }
        problems += finding.problems
    }
}
