/// Why the engine published a new rotation: how its quadrant was proposed, the rule it waited on last, and the
/// rule that let it through at the sample that published it.
///
/// It explains a decision and changes none: the engine records it on the side as the rules of `DecisionRule`
/// run (`OrientationEngine.reason`). `Docs/algorithm.md` has a section on each rule named.
public struct RotationReason: Sendable, Hashable {
    /// How the new quadrant was proposed: `diagonalHysteresis` (gravity's in-plane direction past the diagonal's
    /// hysteresis), `gyroscopeCarriesQuarterTurn` or `accelerometerTakesOver`; nil for the first decision, which
    /// takes the nearest quadrant.
    public var proposedBy: DecisionRule?
    /// The rule that let the change through at its sample: `settled` (the estimate in force had settled),
    /// `turnEnding` (a turn braking to rest inside the new quadrant) or `finishedTurnFound` (a turn made between
    /// two slow reads, found over).
    public var passedBy: DecisionRule
    /// The rule that refused the change at the latest sample that proposed it before, the one it waited on last;
    /// nil when it passed at the first sample that proposed it.
    public var heldBy: DecisionRule?
    /// When the quadrant was first proposed without interruption since, s; nil for the first decision.
    public var proposedAt: Double?

    /// Creates a reason.
    public init(proposedBy: DecisionRule?, passedBy: DecisionRule, heldBy: DecisionRule? = nil, proposedAt: Double? = nil) {
        self.proposedBy = proposedBy
        self.passedBy = passedBy
        self.heldBy = heldBy
        self.proposedAt = proposedAt
    }

    /// Whether this is the first decision, with no rotation before it.
    public var isFirst: Bool { proposedBy == nil }

    /// The one rule to name the decision by: a rule that let it through early (`finishedTurnFound`, `turnEnding`),
    /// else the rule it waited on last (`dwell`, `settled`, `accelerometerAgrees`...), else the rule that proposed
    /// it other than by the diagonal (`gyroscopeCarriesQuarterTurn`, `accelerometerTakesOver`), else `settled`.
    public var rule: DecisionRule {
        if passedBy != .settled { return passedBy }
        if let heldBy { return heldBy }
        if let proposedBy, proposedBy != .diagonalHysteresis { return proposedBy }
        return .settled
    }
}
