import RotationEngine

extension StateEvent {
    /// Degrees clockwise to turn a camera's preview so it looks upright in a user interface that is itself
    /// turned `interfaceRotation` degrees clockwise; nil for an unknown camera or while the rotation is not
    /// known yet. `camera` is its name, libcamera id, node or bus path (`CameraLookup`).
    public func previewAngle(camera: String, interfaceRotation: Int) -> Int? {
        guard let rotation = state.rotation, let cam = self.camera(matching: camera) else { return nil }
        return cam.previewAngle(for: rotation, interfaceRotation: interfaceRotation)
    }

    /// Degrees clockwise a frame from a camera must turn to be upright; nil for an unknown camera or while
    /// the rotation is not known yet. `camera` is its name, libcamera id, node or bus path (`CameraLookup`).
    public func captureAngle(camera: String) -> Int? {
        guard let rotation = state.rotation, let cam = self.camera(matching: camera) else { return nil }
        return cam.captureAngle(for: rotation)
    }

    /// The EXIF Orientation value (1, 6, 3 or 8) for a frame from a camera; nil for an unknown camera or
    /// while the rotation is not known yet.
    public func exifOrientation(camera: String) -> Int? {
        guard let rotation = state.rotation, let cam = self.camera(matching: camera) else { return nil }
        return cam.exifOrientation(for: rotation)
    }

    /// Degrees clockwise a frame from a camera must still turn once the program has applied the camera's
    /// mount itself (`Camera.deviceTurn`); nil for an unknown camera or while the rotation is not known yet.
    public func deviceTurn(camera: String) -> Int? {
        guard let rotation = state.rotation, let cam = self.camera(matching: camera) else { return nil }
        return cam.deviceTurn(for: rotation)
    }
}
