import RotationProtocol

/// One camera as the system describes it, before configuration and naming: the node, what it is, and its
/// facing and mount with where each came from.
public struct DiscoveredCamera: Sendable, Hashable {
    /// What kind of node the camera was found as.
    public enum Kind: String, Sendable, Hashable {
        /// A `video4linux` node whose udev `ID_V4L_CAPABILITIES` contains `:capture:` (a UVC webcam's node).
        case captureNode = "capture node"
        /// A camera sensor's sub-device carrying `V4L2_CID_CAMERA_ORIENTATION` (a MIPI sensor).
        case sensor = "sensor sub-device"
    }

    /// The device's sysfs path: its identity while it is plugged in.
    public var syspath: String
    /// The device node, such as `/dev/video0` or `/dev/v4l-subdev3`.
    public var device: String
    /// The node's other names that udev created (`/dev/v4l/by-id/...`, `/dev/v4l/by-path/...`).
    public var links: [String]
    /// Capture node or sensor sub-device.
    public var kind: Kind
    /// What the camera calls itself, cut to fit a state line.
    public var model: String?
    /// Which way it looks.
    public var facing: CameraFacing
    /// Degrees clockwise its frames need at rotation 0.
    public var mount: Int
    /// Where `facing` and `mount` came from.
    public var sources: Camera.Sources
    /// The property, control or rule that gave the facing, for `rotationd --list`.
    public var facingDetail: String
    /// The property or control that gave the mount, for `rotationd --list`.
    public var mountDetail: String
    /// The id libcamera gives the camera, when it gives one.
    public var libcamera: String?
    /// How the libcamera id was made, or why there is none, for `rotationd --list`.
    public var libcameraDetail: String
    /// udev's `ID_PATH` of the node, when udev gives one.
    public var busPath: String?
    /// The capture nodes that deliver the camera's frames: a capture node's own, a sensor's from the media graph.
    public var nodes: [String]
    /// Where `nodes` came from, for `rotationd --list`.
    public var nodesDetail: String
    /// The panel of a convertible it sits on: udev `ROTATIOND_CAMERA_PANEL` (a local hwdb quirk), else the lid.
    public var panel: CameraPanel = .lid
    /// Whether it sees infrared light only: udev `ROTATIOND_CAMERA_INFRARED` (a local hwdb quirk), else
    /// `ID_INFRARED_CAMERA` (systemd's `70-cameras.hwdb`).
    public var infrared = false
    /// The property that said whether it is infrared, or that none did, for `rotationd --list`.
    public var infraredDetail = "nothing says so"
    /// The node's device number (`major:minor`), to find a sensor in the media graph.
    var number: String?

    /// Creates a description.
    public init(syspath: String, device: String, links: [String] = [], kind: Kind, model: String?, facing: CameraFacing,
                mount: Int, sources: Camera.Sources, facingDetail: String, mountDetail: String,
                libcamera: String? = nil, libcameraDetail: String = "none", busPath: String? = nil, nodes: [String] = [],
                nodesDetail: String = "none") {
        self.syspath = syspath
        self.device = device
        self.links = links
        self.kind = kind
        self.model = model
        self.facing = facing
        self.mount = Camera.wrap(mount)
        self.sources = sources
        self.facingDetail = facingDetail
        self.mountDetail = mountDetail
        self.libcamera = libcamera
        self.libcameraDetail = libcameraDetail
        self.busPath = busPath
        self.nodes = nodes
        self.nodesDetail = nodesDetail
    }

    /// Whether `path` names this camera's node, directly or through one of udev's links, or one of its
    /// capture nodes.
    public func answers(to path: String) -> Bool { device == path || links.contains(path) || nodes.contains(path) }

    /// Orders device paths as people number them: `/dev/video2` before `/dev/video10`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        func split(_ s: String) -> (String, Int) {
            let digits = s.reversed().prefix { $0.isNumber }
            return (String(s.dropLast(digits.count)), Int(String(digits.reversed())) ?? -1)
        }
        let (pa, na) = split(a), (pb, nb) = split(b)
        if pa != pb { return pa < pb }
        return na < nb
    }
}
