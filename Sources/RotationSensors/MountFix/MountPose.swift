import RotationProtocol

/// One pose the guided mount fix (`rotationd --fix-mount`) asks for: the words it asks in, and which way is up
/// for a correctly mounted sensor then, in the frame systemd's hwdb asks of that sensor.
///
/// A display accelerometer's frame is the device's (`Vector3`): x to the left edge, y to the bottom edge, z out of
/// the screen. A base accelerometer's is the one the display has with the lid closed (60-sensor.hwdb, and
/// Docs/trace-format.md, "The base's frame"): x to the user's left as they type, y from the front edge towards the
/// hinge, z down through the underside; so the keyboard lying face up reads (0, 0, −g).
public enum MountPose: String, CaseIterable, Sendable, Hashable {
    /// The display upright in its natural orientation: reads (0, −g, 0).
    case upright
    /// The display turned a quarter clockwise, its left edge up: reads (+g, 0, 0).
    case leftEdgeUp = "left-edge-up"
    /// The display lying face up: reads (0, 0, +g).
    case faceUp = "face-up"
    /// The keyboard base flat on a table, keys up: reads (0, 0, −g) in the base's frame.
    case keysUp = "keys-up"
    /// The closed device standing on its right side, its left side up: the base reads (+g, 0, 0).
    case leftSideUp = "left-side-up"
    /// The closed device standing on its front edge, the hinge up: the base reads (0, +g, 0).
    case hingeUp = "hinge-up"

    /// The display's poses, in the order they are asked for.
    public static let display: [MountPose] = [.upright, .leftEdgeUp, .faceUp]
    /// The base's poses, in the order they are asked for.
    public static let base: [MountPose] = [.keysUp, .leftSideUp, .hingeUp]

    /// The poses asked of a sensor at `location`.
    public static func poses(for location: SensorDescription.Location) -> [MountPose] {
        location == .base ? base : display
    }

    /// The pose a fix is checked with once installed: the first of its sensor's.
    public static func check(for location: SensorDescription.Location) -> MountPose { poses(for: location)[0] }

    /// The unit vector a correctly mounted sensor reads in this pose (it reads "up": a proper acceleration).
    public var up: Vector3 {
        switch self {
        case .upright: Vector3(0, -1, 0)
        case .leftEdgeUp, .leftSideUp: Vector3(1, 0, 0)
        case .faceUp: Vector3(0, 0, 1)
        case .keysUp: Vector3(0, 0, -1)
        case .hingeUp: Vector3(0, 1, 0)
        }
    }

    /// A short name for the pose, for progress lines and messages.
    public var name: String {
        switch self {
        case .upright: "upright"
        case .leftEdgeUp: "left edge up"
        case .faceUp: "face up"
        case .keysUp: "keys up"
        case .leftSideUp: "left side up"
        case .hingeUp: "hinge up"
        }
    }

    /// What the user is asked to do, in one sentence.
    public var instruction: String {
        switch self {
        case .upright:
            "Hold the device upright in its natural orientation, screen towards you, so that this text reads the right way up (a convertible folded into a tablet, or its screen upright)."
        case .leftEdgeUp:
            "Turn it a quarter turn clockwise, so that its left edge points up."
        case .faceUp:
            "Lay it flat on a table, screen up."
        case .keysUp:
            "Put the keyboard flat on a table, keys up, as you type on it (the screen may stay open)."
        case .leftSideUp:
            "Close the lid and stand the device on its right side, so that the keyboard's left side (under your left hand as you type) points up."
        case .hingeUp:
            "Keep the lid closed and stand the device on its front edge (the edge under your wrists as you type), hinge up."
        }
    }

    /// The name of the pose a reading `v` in this pose's frame is nearest to, among the six an axis-aligned
    /// device can be in, for saying what a matrix makes of it ("bottom-up", "face down").
    public func reading(_ v: Vector3) -> String {
        let names: [(Vector3, String)] = self.isBase
            ? [(Vector3(0, 0, -1), "keys up"), (Vector3(0, 0, 1), "keys down"), (Vector3(1, 0, 0), "left side up"),
               (Vector3(-1, 0, 0), "right side up"), (Vector3(0, 1, 0), "hinge up"), (Vector3(0, -1, 0), "front edge up")]
            : [(Vector3(0, -1, 0), "upright"), (Vector3(1, 0, 0), "left edge up"), (Vector3(0, 1, 0), "upside down"),
               (Vector3(-1, 0, 0), "right edge up"), (Vector3(0, 0, 1), "face up"), (Vector3(0, 0, -1), "face down")]
        guard v.isUsable else { return "nothing" }
        return names.max { $0.0.dot(v) < $1.0.dot(v) }!.1
    }

    /// Whether this is one of the base's poses.
    public var isBase: Bool { MountPose.base.contains(self) }
}
