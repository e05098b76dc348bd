import RotationProtocol

extension StateEvent {
    /// Degrees clockwise to turn a camera's preview so it looks upright in a user interface that is itself
    /// turned `interfaceRotation` degrees clockwise; nil for an unknown camera or while the rotation is not
    /// known yet. `camera` is its name, libcamera id, node or bus path (`CameraLookup`).
    public func previewAngle(camera: String, interfaceRotation: Int) -> Int? {
        guard let cam = self.camera(matching: camera), let rotation = rotation(of: cam) else { return nil }
        return cam.previewAngle(for: rotation, interfaceRotation: interfaceRotation)
    }

    /// Degrees clockwise a frame from a camera must turn to be upright; nil for an unknown camera or while
    /// the rotation is not known yet. `camera` is its name, libcamera id, node or bus path (`CameraLookup`).
    public func captureAngle(camera: String) -> Int? {
        guard let cam = self.camera(matching: camera), let rotation = rotation(of: cam) else { return nil }
        return cam.captureAngle(for: rotation)
    }

    /// The EXIF Orientation value (1, 6, 3 or 8) for a frame from a camera; nil for an unknown camera or
    /// while the rotation is not known yet.
    public func exifOrientation(camera: String) -> Int? {
        guard let cam = self.camera(matching: camera), let rotation = rotation(of: cam) else { return nil }
        return cam.exifOrientation(for: rotation)
    }

    /// Degrees clockwise a frame from a camera must still turn once the program has applied the camera's
    /// mount itself (`Camera.deviceTurn`); nil for an unknown camera or while the rotation is not known yet.
    public func deviceTurn(camera: String) -> Int? {
        guard let cam = self.camera(matching: camera), let rotation = rotation(of: cam) else { return nil }
        return cam.deviceTurn(for: rotation)
    }

    /// How a convertible is folded (`closed`, `laptop`, `stand`, `tent`, `tablet`); nil where nothing tells it.
    public var posture: Posture? { state.fold.posture }

    /// The angle between a convertible's panels in whole degrees (0 closed, 180 flat, 360 folded back); nil
    /// while it cannot be known.
    public var hinge: Int? { state.fold.hinge }

    /// Which way a camera looks relative to the person at the display, as the service published it; nil for an
    /// unknown or external camera, or where the service could not tell. `camera` is its name, libcamera id,
    /// node or bus path.
    public func direction(camera: String) -> CameraDirection? {
        self.camera(matching: camera).flatMap { direction(of: $0) }
    }

    /// The cameras looking the way `direction` says now, in the service's order: `.forward` gives those that
    /// see the person at the display, `.backward` those that see what that person sees.
    public func cameras(facing direction: CameraDirection) -> [Camera] {
        cameras.filter { self.direction(of: $0) == direction }
    }

    /// The rotation that turns a camera's frames: the base's own for a camera on a convertible's base once
    /// known, else the display's.
    private func rotation(of cam: Camera) -> Rotation? { state.fold.rotation(of: cam, display: state.rotation) }
}
