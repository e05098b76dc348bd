/// How far the screen leans away from vertical.
///
/// The class comes from the elevation of the gravity reading out of the screen plane, in degrees:
/// positive when the screen faces the sky. `EngineConfiguration` holds the boundaries.
public enum Tilt: String, Sendable, Hashable, CaseIterable {
    /// The screen is within `verticalLimit` degrees of vertical.
    case vertical
    /// The screen faces upwards, leaning back, but the device is not flat.
    case tiltedUp = "tilted-up"
    /// The screen faces downwards, leaning forward, but the device is not flat.
    case tiltedDown = "tilted-down"
    /// The device lies flat with the screen to the sky.
    case faceUp = "face-up"
    /// The device lies flat with the screen to the ground.
    case faceDown = "face-down"

    /// The name used on the wire.
    @inlinable public var name: String { rawValue }
}
