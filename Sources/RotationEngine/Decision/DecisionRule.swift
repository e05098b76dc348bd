/// The decision's named rules, in the order the engine applies them to a sample.
///
/// Each is a function of `Decision` by the same name, whose comment says what it protects against and which
/// trace or test shows it; `Docs/algorithm.md` has a section on each, in this order. A rule can be switched off
/// through `EngineConfiguration.disabledRules`, a measuring aid for `scripts/rule-cost.sh`: a rule switched off
/// lets pass what it would have stopped, or leaves unchanged what it would have changed.
public enum DecisionRule: Int, CaseIterable, Sendable {
    /// While the accelerometer decides, a reading off the pose magnitude holds everything for `motionHoldoff`.
    case motionHold
    /// Fused, the flat flag changes only where the accelerometer's own reading crosses the threshold too.
    case flatNeedsAccelerometer
    /// Fused, the flat flag follows the accelerometer alone where the accelerometer-only path would change it now.
    case flatFollowsAccelerometer
    /// Fused, the tilt class changes only where the accelerometer's own reading gives the same class.
    case tiltNeedsAccelerometer
    /// A new quadrant is proposed only `boundaryHysteresis` past the diagonal.
    case diagonalHysteresis
    /// Fused, where the accelerometer settled in another quadrant, the estimate starts again from it.
    case accelerometerTakesOver
    /// Fused, a quarter turn the gyroscope measured proposes the next quadrant without the diagonal's hysteresis.
    case gyroscopeCarriesQuarterTurn
    /// Fused, a turn found over at the reading after a slow gap, by a confirmed gyroscope, is not waited out.
    case finishedTurnFound
    /// A change waits until its quadrant has been proposed for `dwellTime`.
    case dwell
    /// A decision waits until the device has stopped turning.
    case settled
    /// Fused, a turn the gyroscope reads braking to rest inside the new quadrant need not settle.
    case turnEnding
    /// Fused, a change waits while the gyroscope reads the device speeding away from the new rotation's upright.
    case turnLeaving
    /// Fused, a decision needs the accelerometer's own reading within 60° of the new rotation.
    case accelerometerAgrees
    /// Fused, near flat, a decision needs the accelerometer's own reading in the new rotation's quadrant.
    case nearFlatAccelerometerInQuadrant
    /// Fused, until the gyroscope is confirmed, a decision waits while the accelerometer sees a turn it does not read.
    case accelerometerSettled
    /// Fused, near flat, a change needs a turn the gyroscope measured, or, unconfirmed, the accelerometer's word.
    case nearFlatTurnMeasured
    /// Fused, the gyroscope's measured turn counts only where the accelerometer's direction turned with it.
    case turnSeenByAccelerometer
    /// Fused, unconfirmed, a change the gyroscope did not measure needs the screen 20° from flat.
    case unconfirmedChangeLeans
    /// Fused, a change whose turn the gyroscope did not follow stands only where the accelerometer would make it.
    case gyroscopeFollowed
    /// A change of the inputs in use is published only once it has held for 100 ms.
    case inputsHold

    /// The rule's name, as the code, `Docs/algorithm.md` and the rule-cost report give it.
    public var name: String { String(describing: self) }

    /// The rule called `name`, or nil when there is none.
    public init?(name: String) {
        guard let rule = DecisionRule.allCases.first(where: { $0.name == name }) else { return nil }
        self = rule
    }

    /// The rules a new rotation must pass, in order; each says whether it applies to the first decision.
    static let rotationGates: [DecisionRule] = [
        .dwell, .settled, .turnLeaving, .accelerometerAgrees, .nearFlatAccelerometerInQuadrant, .accelerometerSettled,
        .nearFlatTurnMeasured, .gyroscopeFollowed,
    ]
}

/// Which rules are on, as a bit mask: rules are looked up at every sample.
struct RuleSwitches: Sendable {
    private let off: UInt64

    /// Every rule on except `disabled`.
    init(disabled: Set<DecisionRule>) {
        off = disabled.reduce(0) { $0 | 1 << UInt64($1.rawValue) }
    }

    /// Whether `rule` is on.
    func isOn(_ rule: DecisionRule) -> Bool {
        off & 1 << UInt64(rule.rawValue) == 0
    }
}
