/// Why the engine published its latest state: the rule behind each part of it that changed.
///
/// The engine records it beside every change it publishes (`OrientationEngine.reason`) and decides nothing by
/// it, so a replay can say, and `rotationd --replay --picture` draw, which rule let each decision through. A
/// part that did not change, or a change of the tilt class alone, has none.
public struct ChangeReason: Sendable, Hashable {
    /// Behind a new rotation.
    public var rotation: RotationReason?
    /// Behind a change of the flat flag.
    public var flat: FlatRule?
    /// Behind a change of the inputs in use after the first state: `inputsHold`.
    public var inputs: DecisionRule?
    /// Behind a new posture.
    public var posture: PostureReason?

    /// Creates a reason; every part absent by default.
    public init(rotation: RotationReason? = nil, flat: FlatRule? = nil, inputs: DecisionRule? = nil, posture: PostureReason? = nil) {
        self.rotation = rotation
        self.flat = flat
        self.inputs = inputs
        self.posture = posture
    }
}
