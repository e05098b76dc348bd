/// Why the engine published a new posture: the source it read and the threshold of `PostureLimits` (or the
/// switch) that decided it (`Docs/posture.md`, "Thresholds and why").
///
/// It explains a decision and changes none: `PostureEstimate` records it on the side as it decides.
public struct PostureReason: Sendable, Hashable {
    /// Where the fold was read from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// A hinge sensor's angle.
        case hingeSensor
        /// The display and base accelerometers together.
        case accelerometers
        /// The kernel's tablet-mode or lid switch, or a base that stopped reading (a detachable taken off).
        case switches
    }

    /// The rule that decided, each named as `PostureLimits` (or `Docs/posture.md`) names it.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// The lid switch reads closed (or, alone, open: a laptop).
        case lidSwitch
        /// The tablet-mode switch, where nothing gives an angle.
        case tabletModeSwitch
        /// A base that was read gave none for `baseLostAfter`: a detachable without its keyboard is a tablet.
        case baseLostAfter
        /// The hinge at most `closedEnter` (20°): closed.
        case closedEnter
        /// The hinge above `closedLeave` (35°), or first read between the thresholds: a laptop.
        case closedLeave
        /// The hinge past `foldedEnter` (200°) for `foldedDwell` (0.5 s): the keyboard out of use.
        case foldedEnter
        /// The hinge back under `foldedLeave` (160°): a laptop again.
        case foldedLeave
        /// The hinge at `tabletEnter` (320°) or more: folded back into a tablet.
        case tabletEnter
        /// The hinge back under `tabletLeave` (305°): a stand or tent again.
        case tabletLeave
        /// Folded past flat, the display's y axis more than `tentShare` of 1 g up (a tent) or down (a stand).
        case tentShare
    }

    /// Where the fold was read from.
    public var source: Source
    /// The rule that decided.
    public var rule: Rule

    /// Creates a reason.
    public init(source: Source, rule: Rule) {
        self.source = source
        self.rule = rule
    }
}
