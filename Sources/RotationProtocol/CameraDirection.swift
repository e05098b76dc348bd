/// Which way a camera looks relative to a person facing the display, as the fold puts it.
public enum CameraDirection: String, Sendable, Hashable, CaseIterable {
    /// Within 45° of the display's own direction: it sees the person at the display.
    case forward
    /// Within 45° of the opposite direction: it sees what the person at the display sees.
    case backward
    /// Between the two.
    case sideways
    /// An inner face of a closed device: it sees the other panel.
    case covered

    /// The widest angle between a camera's axis and the display's normal that still counts as forward.
    public static let forwardLimit = 45.0
    /// The narrowest angle that counts as backward.
    public static let backwardLimit = 135.0

    /// The direction of a camera on `panel` looking out of its `facing` face, with the panels `hinge` degrees
    /// apart (0 closed, 180 flat, 360 folded back) and the device `closed` or not; nil for an external camera,
    /// or a camera on the base while the angle between the panels is unknown.
    public static func of(facing: CameraFacing, panel: CameraPanel, hinge: Double?, closed: Bool) -> CameraDirection? {
        if facing == .external { return nil }
        let innerFace = facing == .front
        if closed && innerFace { return .covered }
        let angle: Double
        switch panel {
        case .lid:
            angle = facing == .front ? 0 : 180
        case .base:
            guard let hinge else { return nil }
            // The base's top face turns away from the display's direction as the hinge closes or folds back.
            let top = abs(180 - min(max(hinge, 0), 360))
            angle = facing == .front ? top : 180 - top
        }
        if angle <= forwardLimit { return .forward }
        if angle >= backwardLimit { return .backward }
        return .sideways
    }
}
