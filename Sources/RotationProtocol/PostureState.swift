/// What the engine publishes about a convertible's fold.
public struct PostureState: Sendable, Hashable {
    /// How the device is folded, or nil where nothing tells it (a plain tablet, or before the first reading).
    public var posture: Posture?
    /// The angle between the panels in whole degrees (0 closed, 180 flat, 360 folded back), or nil while it
    /// cannot be read (the hinge upright, no hinge source).
    public var hinge: Int?
    /// The last angle read, held while `hinge` cannot be read: what the cameras' directions follow.
    public var heldHinge: Int?
    /// The base's own rotation, read as the display's is, for the cameras on the base; nil while the base has
    /// not stood up from flat since it was found.
    public var baseRotation: Rotation?

    /// Creates a posture state.
    public init(posture: Posture? = nil, hinge: Int? = nil, heldHinge: Int? = nil, baseRotation: Rotation? = nil) {
        self.posture = posture
        self.hinge = hinge
        self.heldHinge = heldHinge
        self.baseRotation = baseRotation
    }

    /// Nothing known: no posture, no hinge.
    public static let unknown = PostureState()

    /// The direction of `camera` in this state, relative to a person facing the display.
    public func direction(of camera: Camera) -> CameraDirection? {
        if camera.panel == .base && posture == .tablet && heldHinge == nil { return nil }
        let hinge = heldHinge.map(Double.init) ?? (posture == .closed ? 0 : nil)
        return CameraDirection.of(facing: camera.facing, panel: camera.panel, hinge: hinge, closed: posture == .closed)
    }

    /// The rotation that turns `camera`'s frames: the base's for a camera on the base once known, else the
    /// display's.
    public func rotation(of camera: Camera, display: Rotation?) -> Rotation? {
        camera.panel == .base ? (baseRotation ?? display) : display
    }
}
