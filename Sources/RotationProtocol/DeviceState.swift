/// The sensor inputs the engine's decision rests on.
public enum EngineInputs: String, Sendable, Hashable {
    /// The accelerometer alone.
    case accel
    /// The accelerometer fused with a gyroscope.
    case accelGyro = "accel+gyro"
}

/// What the engine publishes: the device rotation and how the device is held.
public struct DeviceState: Sendable, Hashable {
    /// The rotation, or nil until the first decision.
    public var rotation: Rotation?
    /// The tilt class, or nil until the first usable sample.
    public var tilt: Tilt?
    /// True while the device lies flat; the rotation then holds.
    public var flat: Bool
    /// Which inputs the decision uses.
    public var inputs: EngineInputs
    /// How a convertible is folded; unknown on a device that tells nothing of a fold.
    public var fold: PostureState

    /// Creates a state.
    public init(rotation: Rotation? = nil, tilt: Tilt? = nil, flat: Bool = false, inputs: EngineInputs = .accel,
                fold: PostureState = .unknown) {
        self.rotation = rotation
        self.tilt = tilt
        self.flat = flat
        self.inputs = inputs
        self.fold = fold
    }

    /// The state before any sample: no rotation, no tilt, not flat.
    public static let initial = DeviceState()
}
