import RotationEngine

extension StateEvent {
    /// Degrees clockwise to turn the named camera's preview so it looks upright in a user interface
    /// that is itself turned `interfaceRotation` degrees clockwise; nil for an unknown camera or while the
    /// rotation is not known yet.
    public func previewAngle(camera name: String, interfaceRotation: Int) -> Int? {
        guard let rotation = state.rotation, let cam = cameras.first(where: { $0.name == name }) else { return nil }
        return cam.previewAngle(for: rotation, interfaceRotation: interfaceRotation)
    }

    /// Degrees clockwise a frame from the named camera must turn to be upright; nil for an unknown camera
    /// or while the rotation is not known yet.
    public func captureAngle(camera name: String) -> Int? {
        guard let rotation = state.rotation, let cam = cameras.first(where: { $0.name == name }) else { return nil }
        return cam.captureAngle(for: rotation)
    }
}
