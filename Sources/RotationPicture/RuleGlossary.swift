import RotationEngine

/// What each rule named in a picture means, in a few words: the picture's table says it beside the name, and
/// `Docs/algorithm.md` and `Docs/posture.md` say the rest.
enum RuleGlossary {
    /// A decision rule's few words.
    static func phrase(_ rule: DecisionRule) -> String {
        switch rule {
        case .motionHold: "held while |a| was off the pose magnitude"
        case .flatNeedsAccelerometer: "the accelerometer had to cross the flat threshold too"
        case .flatFollowsAccelerometer: "the flat flag followed the accelerometer"
        case .tiltNeedsAccelerometer: "the accelerometer had to give the same tilt"
        case .diagonalHysteresis: "gravity past the diagonal by boundaryHysteresis"
        case .accelerometerTakesOver: "the accelerometer settled in another quadrant than the fused estimate"
        case .gyroscopeCarriesQuarterTurn: "the gyroscope measured a quarter turn"
        case .finishedTurnFound: "a turn made between two slow reads, found over"
        case .dwell: "its quadrant held for dwellTime"
        case .settled: "the device came to rest"
        case .turnEnding: "a turn braking to rest inside the new quadrant"
        case .turnLeaving: "waited while the device sped away"
        case .accelerometerAgrees: "the accelerometer came within 60° of it"
        case .nearFlatAccelerometerInQuadrant: "near flat, the accelerometer came into its quadrant"
        case .accelerometerSettled: "the accelerometer stopped turning"
        case .nearFlatTurnMeasured: "near flat, a turn was measured"
        case .turnSeenByAccelerometer: "the accelerometer saw the gyroscope's turn"
        case .unconfirmedChangeLeans: "the screen leaned 20° from flat"
        case .gyroscopeFollowed: "the gyroscope was asked whether it followed the turn"
        case .inputsHold: "the inputs in use held for 100 ms"
        }
    }

    /// A flat rule's few words.
    static func phrase(_ rule: FlatRule) -> String {
        switch rule {
        case .flatEnterAngle: "gravity's elevation above flatEnterAngle"
        case .flatExitAngle: "gravity's elevation below flatExitAngle"
        case .flatFollowsAccelerometer: phrase(DecisionRule.flatFollowsAccelerometer)
        }
    }

    /// A posture rule's few words.
    static func phrase(_ rule: PostureReason.Rule) -> String {
        switch rule {
        case .lidSwitch: "the lid switch"
        case .tabletModeSwitch: "the tablet-mode switch"
        case .baseLostAfter: "the base stopped reading for 1 s"
        case .closedEnter: "the hinge at 20° or less"
        case .closedLeave: "the hinge above 35°"
        case .foldedEnter: "the hinge past 200° for 0.5 s"
        case .foldedLeave: "the hinge back under 160°"
        case .tabletEnter: "the hinge at 320° or more"
        case .tabletLeave: "the hinge back under 305°"
        case .tentShare: "the display's y axis 30 % of g up or down"
        }
    }

    /// Where a posture's source is read, in a word or two.
    static func phrase(_ source: PostureReason.Source) -> String {
        switch source {
        case .hingeSensor: "hinge sensor"
        case .accelerometers: "both accelerometers"
        case .switches: "switches"
        }
    }
}
