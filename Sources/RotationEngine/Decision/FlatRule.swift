/// What changed the published flat flag: the estimate's elevation crossing a threshold, or the accelerometer's
/// own reading through the `flatFollowsAccelerometer` rule (`Docs/algorithm.md`, "Flat and tilt").
public enum FlatRule: String, Sendable, Hashable, CaseIterable {
    /// Gravity's elevation out of the screen plane rose above `flatEnterAngle`: the device lies flat.
    case flatEnterAngle
    /// It fell below `flatExitAngle`: the device is lifted.
    case flatExitAngle
    /// Fused, the flag followed the accelerometer alone (`DecisionRule.flatFollowsAccelerometer`).
    case flatFollowsAccelerometer

    /// The name, as `Docs/algorithm.md` gives it.
    public var name: String { rawValue }
}
