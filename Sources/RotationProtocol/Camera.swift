/// Which way a camera looks, which decides how its capture angle follows the device rotation.
public enum CameraFacing: String, Sendable, Hashable, CaseIterable {
    /// Looks at the user, from the screen side.
    case front
    /// Looks away from the user, from the back of the device.
    case back
    /// Not part of the device; it does not turn with it.
    case external
}

/// A camera whose frames need turning upright as the device turns.
public struct Camera: Sendable, Hashable {
    /// Where the camera's facing and mount came from.
    public struct Sources: Sendable, Hashable {
        /// Where `facing` came from.
        public var facing: CameraValueSource
        /// Where `mount` came from.
        public var mount: CameraValueSource

        /// Names the source of each value.
        public init(facing: CameraValueSource, mount: CameraValueSource) {
            self.facing = facing
            self.mount = mount
        }

        /// Both values from `rotationd --camera`.
        public static let config = Sources(facing: .config, mount: .config)
        /// Both values from rotationd's defaults.
        public static let `default` = Sources(facing: .default, mount: .default)
    }

    /// The most cameras a state carries: every state line lists every camera, each with all its names, and
    /// must stay within the protocol's 4096-byte line limit.
    public static let maxCount = 6
    /// The longest name, in bytes.
    public static let maxNameBytes = 32
    /// The longest device path, in bytes.
    public static let maxDeviceBytes = 64
    /// The longest model, in bytes once written as a JSON string with its quotes.
    public static let maxModelJSONBytes = 50
    /// The longest libcamera id, in bytes once written as a JSON string with its quotes (an ACPI path's
    /// leading backslash takes two).
    public static let maxLibcameraJSONBytes = 96
    /// The longest bus path, in bytes.
    public static let maxBusPathBytes = 64
    /// The most capture nodes listed for one camera.
    public static let maxNodes = 4
    /// The longest capture node path, in bytes.
    public static let maxNodeBytes = 24

    /// A short name, unique among the cameras (`front`, `back`, `external2`).
    public var name: String
    /// Which way the camera looks.
    public var facing: CameraFacing
    /// Degrees clockwise its frames must turn to be upright when the device is in its natural orientation.
    public var mount: Int
    /// The device node a capture program opens (`/dev/video0`, or a sensor's `/dev/v4l-subdev3`), when known.
    public var device: String?
    /// What the camera calls itself (udev `ID_V4L_PRODUCT`, or the sensor's name), when known.
    public var model: String?
    /// Where `facing` and `mount` came from; nil when a message did not say.
    public var source: Sources?
    /// The id libcamera gives this camera (its `Camera::id()`, which PipeWire publishes as
    /// `api.libcamera.path`), when known.
    public var libcamera: String?
    /// udev's `ID_PATH` for the camera's node (PipeWire's `device.bus-path` for a V4L2 node), when known.
    public var busPath: String?
    /// The capture nodes that deliver this camera's frames: a capture node's own `/dev/videoN`, or for a
    /// sensor the nodes its data reaches in the media graph; empty when unknown.
    public var nodes: [String]
    /// The panel of a convertible the camera sits on: the lid (the display's, and every camera of a device that
    /// does not fold) or the base, whose own orientation then turns its frames.
    public var panel: CameraPanel
    /// Whether the camera sees infrared light only (a face-unlock camera): its frames are not pictures, so it is
    /// never recommended unless a user chose it.
    public var infrared: Bool

    /// Creates a camera; `mount` is reduced to 0..<360.
    public init(name: String, facing: CameraFacing, mount: Int, device: String? = nil, model: String? = nil,
                source: Sources? = .config, libcamera: String? = nil, busPath: String? = nil, nodes: [String] = [],
                panel: CameraPanel = .lid, infrared: Bool = false) {
        self.name = name
        self.facing = facing
        self.mount = Camera.wrap(mount)
        self.device = device
        self.model = model
        self.source = source
        self.libcamera = libcamera
        self.busPath = busPath
        self.nodes = nodes
        self.panel = panel
        self.infrared = infrared
    }

    /// The default set: one front and one back camera, both mounted at 90°, the common phone convention.
    public static let defaults: [Camera] = [
        Camera(name: "front", facing: .front, mount: 90, source: .default),
        Camera(name: "back", facing: .back, mount: 90, source: .default),
    ]

    /// Degrees clockwise a captured frame must turn to be upright when the device is at `rotation`.
    ///
    /// front: (mount − r) mod 360; back: (mount + r) mod 360; external: mount.
    public func captureAngle(for rotation: Rotation) -> Int {
        switch facing {
        case .front: return Camera.wrap(mount - rotation.degrees)
        case .back: return Camera.wrap(mount + rotation.degrees)
        case .external: return mount
        }
    }

    /// The EXIF Orientation value (TIFF tag 274) for a frame from this camera taken at `rotation`: 1, 6, 3
    /// or 8 for a capture angle of 0, 90, 180 or 270 degrees clockwise.
    public func exifOrientation(for rotation: Rotation) -> Int {
        Camera.exifOrientation(captureAngle: captureAngle(for: rotation))
    }

    /// The EXIF Orientation value that tells a viewer to turn a frame `angle` degrees clockwise (a multiple
    /// of 90): 0 → 1, 90 → 6, 180 → 3, 270 → 8. A viewer turns the stored pixels by it; the mirrored values
    /// (2, 4, 5, 7) are never needed, since rotationd's angles turn without mirroring.
    public static func exifOrientation(captureAngle angle: Int) -> Int {
        switch wrap(angle) {
        case 90: return 6
        case 180: return 3
        case 270: return 8
        default: return 1
        }
    }

    /// Degrees clockwise a frame must still turn at `rotation` once a program has applied the mount itself
    /// (as programs that turn frames by the sensor rotation libcamera or PipeWire report do): the capture
    /// angle less the mount, (capture − mount) mod 360, which is r for a back camera, (360 − r) mod 360 for
    /// a front camera and 0 for an external one.
    public func deviceTurn(for rotation: Rotation) -> Int { Camera.wrap(captureAngle(for: rotation) - mount) }

    /// Degrees clockwise a preview must turn to look upright in a user interface that is itself turned `ui` degrees clockwise.
    ///
    /// back: (mount + r − u) mod 360; front and external: (mount − r + u) mod 360. An external camera stays
    /// upright in the world, so on a screen turned r clockwise its image must turn back by r, as a front
    /// camera's does; with the interface following the device (u = r) every camera previews at its mount.
    public func previewAngle(for rotation: Rotation, interfaceRotation ui: Int) -> Int {
        switch facing {
        case .front, .external: return Camera.wrap(mount - rotation.degrees + ui)
        case .back: return Camera.wrap(mount + rotation.degrees - ui)
        }
    }

    /// Whether `name` can be a camera's name: 1 to `maxNameBytes` bytes, without control characters, quotes or
    /// backslashes (so it is as long in a JSON line as it is in bytes).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameBytes && !needsEscaping(name)
    }

    /// Whether `path` can be one of a camera's `nodes`: a device path of at most `maxNodeBytes` bytes.
    public static func isValidNode(_ path: String) -> Bool { isValidDevice(path) && path.utf8.count <= maxNodeBytes }

    /// Whether `path` can be a camera's bus path: 1 to `maxBusPathBytes` bytes without control characters,
    /// quotes, backslashes or spaces.
    public static func isValidBusPath(_ path: String) -> Bool {
        !path.isEmpty && path.utf8.count <= maxBusPathBytes && !needsEscaping(path) && !path.contains(" ")
    }

    /// Whether `id` can be a camera's libcamera id: not empty, without control characters, and at most
    /// `maxLibcameraJSONBytes` bytes once written as a JSON string.
    public static func isValidLibcameraID(_ id: String) -> Bool {
        guard !id.isEmpty, !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        var quoted = ""
        JSONWriter.appendString(id, to: &quoted)
        return quoted.utf8.count <= maxLibcameraJSONBytes
    }

    private static func needsEscaping(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" }
    }

    /// Whether `path` can be a camera's `device`: absolute, at most `maxDeviceBytes` bytes, and without control
    /// characters, quotes or backslashes (so it is as long in a JSON line as it is on disk).
    public static func isValidDevice(_ path: String) -> Bool {
        path.hasPrefix("/") && path.utf8.count <= maxDeviceBytes && !needsEscaping(path)
    }

    /// The mount for a sensor that reports `V4L2_CID_CAMERA_SENSOR_ROTATION` = `rotation`: that control is the
    /// counter-clockwise correction a frame needs, the mount the clockwise one, so (360 − rotation) mod 360.
    public static func mount(sensorRotation rotation: Int) -> Int { wrap(-rotation) }

    /// Reduces any angle in degrees to 0..<360.
    @inlinable public static func wrap(_ degrees: Int) -> Int { ((degrees % 360) + 360) % 360 }
}
