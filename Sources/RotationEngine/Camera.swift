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
    /// A short name, unique among the configured cameras (`front`, `back`, `usb0`).
    public var name: String
    /// Which way the camera looks.
    public var facing: CameraFacing
    /// Degrees clockwise its frames must turn to be upright when the device is in its natural orientation.
    public var mount: Int

    /// Creates a camera; `mount` is reduced to 0..<360.
    public init(name: String, facing: CameraFacing, mount: Int) {
        self.name = name
        self.facing = facing
        self.mount = Camera.wrap(mount)
    }

    /// The default set: one front and one back camera, both mounted at 90°, the common phone convention.
    public static let defaults: [Camera] = [
        Camera(name: "front", facing: .front, mount: 90),
        Camera(name: "back", facing: .back, mount: 90),
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

    /// Reduces any angle in degrees to 0..<360.
    @inlinable public static func wrap(_ degrees: Int) -> Int { ((degrees % 360) + 360) % 360 }
}
