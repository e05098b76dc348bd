/// Every threshold of the orientation filter, each with a documented default.
///
/// `Docs/algorithm.md` explains why each exists and how its default was chosen. Angles are in degrees, times in
/// seconds, angular rates in degrees per second, accelerations in m/s². Each value can also be set by its name
/// (the property name) through `set(_:to:)`, which `rotationd --set NAME=VALUE` uses.
public struct EngineConfiguration: Sendable, Hashable {
    /// Standard gravity, what a correctly scaled sensor reads at rest: the learned 1 g starts here and is
    /// compared with it to tell a wrong scale. The filter's own tests are relative to what the sensor reads.
    public var gravity: Double = 9.80665

    /// Time constant of the low-pass filter that estimates gravity from the accelerometer alone.
    public var smoothingTime: Double = 0.02

    /// Largest relative departure of |a| from the magnitude of the current pose for a sample still to count as
    /// "at rest" (0.25 = ±25 %).
    public var motionTolerance: Double = 0.25
    /// Time constant with which the magnitude of the current pose follows |a|.
    public var levelSmoothingTime: Double = 0.1
    /// Seconds of stillness over which what 1 g reads is averaged: a running mean until then, a moving one after.
    public var gravityLearningTime: Double = 10
    /// How long after the last out-of-tolerance sample the rotation, the tilt and the flat flag stay frozen.
    public var motionHoldoff: Double = 0.25

    /// Elevation of gravity out of the screen plane above which the device becomes flat.
    public var flatEnterAngle: Double = 75
    /// Elevation below which a flat device stops being flat. Lower than `flatEnterAngle`: hysteresis.
    public var flatExitAngle: Double = 65
    /// Elevation within which the screen counts as vertical, for the tilt class.
    public var verticalLimit: Double = 20
    /// Degrees the elevation must go past `verticalLimit` before the tilt class changes: hysteresis.
    public var tiltHysteresis: Double = 4

    /// Degrees past the 45° diagonal the in-plane angle must go before a new quadrant can win.
    public var boundaryHysteresis: Double = 15

    /// How long a new quadrant must be proposed, uninterrupted, before it can be published.
    public var dwellTime: Double = 0.06
    /// Turn rate in the screen plane below which the device counts as settled.
    public var settleRate: Double = 100
    /// How long the device must have been settled before a new quadrant is published.
    public var settleTime: Double = 0.05
    /// Accelerometer only: a turn whose rate falls below this may be over before it is settled
    /// (`DecisionRule.turnEnding`); 0 waits for every turn to settle.
    public var endingRate: Double = 250
    /// Accelerometer only: how many times lower than at the sample before a turn's rate must be to count as
    /// slowing down, above the noise of a direction measured by the accelerometer.
    public var endingBraking: Double = 1.4
    /// Accelerometer only: how near the new rotation's upright a slowing turn must come to rest to count as
    /// ending; a glance's far end, short of it, is not published.
    public var endingMargin: Double = 10
    /// Time constant of the low-pass filter on the measured turn rate.
    public var rateSmoothingTime: Double = 0.03

    /// A gap between samples longer than this restarts the filter from scratch.
    public var maxGap: Double = 1.0

    /// With a gyroscope: time constant of the correction of the gyroscope-integrated gravity towards the
    /// accelerometer. Longer ignores linear acceleration better; shorter forgets gyroscope errors sooner.
    public var fusionTime: Double = 0.5
    /// With a gyroscope: time constant with which the gyroscope bias is learned.
    public var biasTime: Double = 4
    /// With a gyroscope: the bias is learned only while the accelerometer's gravity direction turns slower
    /// than this, that is while the accelerometer sees the device still, whatever the gyroscope reads.
    public var biasRateLimit: Double = 30
    /// With a gyroscope: time constant of the low-pass filter on the gyroscope's turn rate.
    public var gyroRateSmoothingTime: Double = 0.01
    /// With a gyroscope: turn rate below which the device counts as settled.
    public var fusedSettleRate: Double = 80
    /// With a gyroscope: how long the device must have been settled before a new quadrant is published.
    public var fusedSettleTime: Double = 0.05
    /// With a gyroscope: a turn the gyroscope reads slowing down, below this rate, may be over before it is
    /// settled (`DecisionRule.turnEnding`); 0 waits for every turn to settle.
    public var fusedEndingRate: Double = 200
    /// How far a slowing turn may still go, at its present deceleration, to count as ending.
    public var endingTravel: Double = 10
    /// With a gyroscope: how near the new rotation's upright a slowing turn must come to rest to count as ending.
    public var fusedEndingMargin: Double = 25
    /// With a gyroscope: a change waits while the gyroscope reads the device speeding up, faster than this, away
    /// from the new rotation's upright (`DecisionRule.turnLeaving`); 0 never waits.
    public var fusedLeavingRate: Double = 10
    /// How long after the last gyroscope reading the filter keeps fusing before it falls back to the
    /// accelerometer alone.
    public var gyroTimeout: Double = 0.25
    /// With a gyroscope: after readings resume from a gap longer than `gyroTimeout` (or a slow pace while
    /// still), how long the fused estimate follows the accelerometer's own estimate on calm readings, with the
    /// accelerometer-only motion hold guarding the decisions.
    public var reacquireTime: Double = 0.25

    /// Decision rules switched off (`DecisionRule`), to measure what each one costs: a measuring aid for
    /// `scripts/rule-cost.sh`, never a setting. Not among `parameters`, so `--set` cannot reach it; empty by
    /// default.
    public var disabledRules: Set<DecisionRule> = []

    /// The filter's defaults.
    public static let `default` = EngineConfiguration()

    /// Creates the default configuration.
    public init() {}

    /// One named threshold: its name, a one-line meaning with its unit, and where it lives.
    public struct Parameter: Sendable {
        /// The name `set(_:to:)` and `rotationd --set` accept: the property's name.
        public let name: String
        /// What the value means, with its unit.
        public let summary: String
        /// Reads the value.
        public let get: @Sendable (EngineConfiguration) -> Double
        /// Writes the value.
        public let set: @Sendable (inout EngineConfiguration, Double) -> Void
    }

    /// Every settable threshold, in the order `Docs/algorithm.md` explains them.
    public static let parameters: [Parameter] = [
        Parameter(name: "gravity", summary: "standard gravity, m/s²",
                  get: { $0.gravity }, set: { $0.gravity = $1 }),
        Parameter(name: "smoothingTime", summary: "accelerometer low-pass time constant, s",
                  get: { $0.smoothingTime }, set: { $0.smoothingTime = $1 }),
        Parameter(name: "motionTolerance", summary: "largest relative departure of |a| from the pose magnitude still at rest",
                  get: { $0.motionTolerance }, set: { $0.motionTolerance = $1 }),
        Parameter(name: "levelSmoothingTime", summary: "time constant of the pose magnitude, s",
                  get: { $0.levelSmoothingTime }, set: { $0.levelSmoothingTime = $1 }),
        Parameter(name: "gravityLearningTime", summary: "seconds of stillness what 1 g reads is averaged over, s",
                  get: { $0.gravityLearningTime }, set: { $0.gravityLearningTime = $1 }),
        Parameter(name: "motionHoldoff", summary: "freeze after the last out-of-tolerance sample, s",
                  get: { $0.motionHoldoff }, set: { $0.motionHoldoff = $1 }),
        Parameter(name: "flatEnterAngle", summary: "elevation above which the device is flat, degrees",
                  get: { $0.flatEnterAngle }, set: { $0.flatEnterAngle = $1 }),
        Parameter(name: "flatExitAngle", summary: "elevation below which it is no longer flat, degrees",
                  get: { $0.flatExitAngle }, set: { $0.flatExitAngle = $1 }),
        Parameter(name: "verticalLimit", summary: "elevation within which the tilt class is vertical, degrees",
                  get: { $0.verticalLimit }, set: { $0.verticalLimit = $1 }),
        Parameter(name: "tiltHysteresis", summary: "degrees past verticalLimit before the tilt class changes",
                  get: { $0.tiltHysteresis }, set: { $0.tiltHysteresis = $1 }),
        Parameter(name: "boundaryHysteresis", summary: "degrees past a 45° diagonal before a new quadrant wins",
                  get: { $0.boundaryHysteresis }, set: { $0.boundaryHysteresis = $1 }),
        Parameter(name: "dwellTime", summary: "how long a new quadrant must be proposed, s",
                  get: { $0.dwellTime }, set: { $0.dwellTime = $1 }),
        Parameter(name: "settleRate", summary: "turn rate below which the device is settled, degrees/s",
                  get: { $0.settleRate }, set: { $0.settleRate = $1 }),
        Parameter(name: "settleTime", summary: "how long it must be settled before a change, s",
                  get: { $0.settleTime }, set: { $0.settleTime = $1 }),
        Parameter(name: "endingRate", summary: "accelerometer only: a slowing turn below this rate may be over before it settles (0: never), degrees/s",
                  get: { $0.endingRate }, set: { $0.endingRate = $1 }),
        Parameter(name: "endingBraking", summary: "accelerometer only: how many times lower than at the sample before a slowing turn's rate is",
                  get: { $0.endingBraking }, set: { $0.endingBraking = $1 }),
        Parameter(name: "endingMargin", summary: "accelerometer only: how near the new rotation a slowing turn must come to rest, degrees",
                  get: { $0.endingMargin }, set: { $0.endingMargin = $1 }),
        Parameter(name: "rateSmoothingTime", summary: "turn-rate low-pass time constant, s",
                  get: { $0.rateSmoothingTime }, set: { $0.rateSmoothingTime = $1 }),
        Parameter(name: "maxGap", summary: "a longer gap between samples restarts the filter, s",
                  get: { $0.maxGap }, set: { $0.maxGap = $1 }),
        Parameter(name: "fusionTime", summary: "gyroscope fusion: accelerometer correction time constant, s",
                  get: { $0.fusionTime }, set: { $0.fusionTime = $1 }),
        Parameter(name: "biasTime", summary: "gyroscope fusion: bias learning time constant, s",
                  get: { $0.biasTime }, set: { $0.biasTime = $1 }),
        Parameter(name: "biasRateLimit", summary: "gyroscope fusion: learn bias only while the accelerometer direction turns slower than this, degrees/s",
                  get: { $0.biasRateLimit }, set: { $0.biasRateLimit = $1 }),
        Parameter(name: "gyroRateSmoothingTime", summary: "gyroscope fusion: turn-rate low-pass time constant, s",
                  get: { $0.gyroRateSmoothingTime }, set: { $0.gyroRateSmoothingTime = $1 }),
        Parameter(name: "fusedSettleRate", summary: "gyroscope fusion: turn rate below which the device is settled, degrees/s",
                  get: { $0.fusedSettleRate }, set: { $0.fusedSettleRate = $1 }),
        Parameter(name: "fusedSettleTime", summary: "gyroscope fusion: how long it must be settled before a change, s",
                  get: { $0.fusedSettleTime }, set: { $0.fusedSettleTime = $1 }),
        Parameter(name: "fusedEndingRate", summary: "gyroscope fusion: a slowing turn below this rate may be over before it settles (0: never), degrees/s",
                  get: { $0.fusedEndingRate }, set: { $0.fusedEndingRate = $1 }),
        Parameter(name: "endingTravel", summary: "how far a slowing turn may still go and count as ending, degrees",
                  get: { $0.endingTravel }, set: { $0.endingTravel = $1 }),
        Parameter(name: "fusedEndingMargin", summary: "gyroscope fusion: how near the new rotation a slowing turn must come to rest, degrees",
                  get: { $0.fusedEndingMargin }, set: { $0.fusedEndingMargin = $1 }),
        Parameter(name: "fusedLeavingRate", summary: "gyroscope fusion: a change waits while the device speeds away from it faster than this (0: never), degrees/s",
                  get: { $0.fusedLeavingRate }, set: { $0.fusedLeavingRate = $1 }),
        Parameter(name: "gyroTimeout", summary: "fall back to the accelerometer this long after the last gyroscope reading, s",
                  get: { $0.gyroTimeout }, set: { $0.gyroTimeout = $1 }),
        Parameter(name: "reacquireTime", summary: "gyroscope fusion: after a gap, follow the accelerometer on calm readings this long, s",
                  get: { $0.reacquireTime }, set: { $0.reacquireTime = $1 }),
    ]

    /// The names `set(_:to:)` accepts, comma-separated, for error messages and help.
    public static var parameterNames: String {
        var out = ""
        for p in parameters {
            if !out.isEmpty { out += ", " }
            out += p.name
        }
        return out
    }

    /// The value of the threshold called `name`, or nil when there is none by that name.
    public func value(of name: String) -> Double? {
        for p in EngineConfiguration.parameters where p.name == name { return p.get(self) }
        return nil
    }

    /// Sets the threshold called `name` to `value`.
    ///
    /// - Throws: `ConfigurationError` when no threshold has that name, or the value is not a finite number
    ///   that is zero or more.
    public mutating func set(_ name: String, to value: Double) throws(ConfigurationError) {
        guard let p = EngineConfiguration.parameters.first(where: { $0.name == name }) else {
            throw ConfigurationError(reason: "no threshold is called \"\(name)\"; valid names: \(EngineConfiguration.parameterNames)")
        }
        guard value.isFinite, value >= 0 else {
            throw ConfigurationError(reason: "\(name) must be a finite number ≥ 0 (\(p.summary)); got \(value)")
        }
        p.set(&self, value)
    }

    /// Checks that the thresholds fit together; returns the first problem found, or nil.
    public func validate() -> ConfigurationError? {
        for p in EngineConfiguration.parameters {
            let v = p.get(self)
            if !v.isFinite || v < 0 {
                return ConfigurationError(reason: "\(p.name) must be a finite number ≥ 0 (\(p.summary)); got \(v)")
            }
        }
        // At 0 these leave the filter unable to decide anything: every sample would be motion (motionTolerance),
        // turning (settleRate, fusedSettleRate) or a restart (maxGap, gyroTimeout), or a division would be by 0.
        for name in ["gravity", "motionTolerance", "settleRate", "maxGap", "fusionTime", "biasTime",
                     "fusedSettleRate", "gyroTimeout"] {
            guard let p = EngineConfiguration.parameters.first(where: { $0.name == name }) else { continue }
            let v = p.get(self)
            if v <= 0 {
                return ConfigurationError(reason: "\(name) must be more than 0 (\(p.summary)); got \(v), the default is \(p.get(.default))")
            }
        }
        if flatExitAngle > flatEnterAngle {
            return ConfigurationError(reason: "flatExitAngle (\(flatExitAngle)) must not exceed flatEnterAngle (\(flatEnterAngle)); make the exit angle the lower one")
        }
        if flatEnterAngle > 90 {
            return ConfigurationError(reason: "flatEnterAngle must be at most 90 degrees; got \(flatEnterAngle)")
        }
        if tiltHysteresis > verticalLimit || verticalLimit + tiltHysteresis > flatExitAngle {
            return ConfigurationError(reason: "tiltHysteresis (\(tiltHysteresis)) must fit between 0, verticalLimit (\(verticalLimit)) and flatExitAngle (\(flatExitAngle)): need tiltHysteresis ≤ verticalLimit and verticalLimit + tiltHysteresis ≤ flatExitAngle")
        }
        if boundaryHysteresis >= 45 {
            return ConfigurationError(reason: "boundaryHysteresis must be below 45 degrees, or no quadrant could ever win; got \(boundaryHysteresis)")
        }
        return nil
    }
}
