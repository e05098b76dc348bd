import RotationProtocol

/// Decides how fast the accelerometer must be read: at the full rate while the device moves or the filter has
/// something pending, slowly while it is still.
///
/// A pure value, like the engine: the live capture and the replay feed it the same samples and ask it the
/// same question, so a replay measures what users get. `Docs/sensors.md` explains the rates and thresholds.
///
/// - At the full rate, the readings are compared with their own recent mean (the still pose). Once every
///   reading has stayed within the still band of it for `settleTime`, and the engine has nothing pending, the
///   pace drops to slow and the still pose is kept.
/// - At the slow pace, each reading is compared with the still pose: the first that departs from it by more
///   than the band, in direction or magnitude, brings the full rate back at once.
/// - A convertible's base sensor, where the samples carry one, counts too: a base reading more than the widest
///   band from its own still pose brings the full rate back.
/// - The band is `noiseFactor` times the noise learned while the engine sees no motion (the mean relative
///   distance of a reading from the still pose), and never less than `minimumDeparture`, so a sensor's own
///   noise, or a hand's tremor, does not keep the rate up.
public struct SamplingPolicy: Sendable {
    /// The policy's thresholds.
    public struct Configuration: Sendable, Hashable {
        /// Seconds between reads while still.
        public var slowInterval: Double = 0.4
        /// Seconds the readings must stay in the still band at the full rate, with the engine quiet, before the
        /// pace drops.
        public var settleTime: Double = 0.4
        /// A reading departs from the still pose when it is more than this many times the learned noise (the
        /// root mean square of the readings' relative distance from the pose) away.
        public var noiseFactor: Double = 4
        /// The smallest departure that counts, relative to the still pose's magnitude (0.02 is about 1.1° of
        /// direction, or 2 % of magnitude).
        public var minimumDeparture: Double = 0.02
        /// The largest band, however noisy the sensor or the hand: a turn is noticed before it is this far
        /// along (0.1 is about 6°).
        public var maximumDeparture: Double = 0.1
        /// Time constant of the still pose's mean at the full rate.
        public var poseTime: Double = 0.2
        /// Time constant of the learned noise.
        public var noiseTime: Double = 2

        /// The defaults.
        public init() {}
    }

    /// How fast to read.
    public enum Pace: String, Sendable, Hashable {
        /// Every sample the sensor gives, at the configured rate.
        case full
        /// One read every `slowInterval`.
        case slow
    }

    /// The thresholds in force.
    public let configuration: Configuration
    /// The pace for the reads that follow.
    public private(set) var pace: Pace = .full
    /// The noise learned while still: the root mean square of a reading's distance from the still pose,
    /// relative to the pose's magnitude.
    public var noise: Double { meanSquare.squareRoot() }
    private var meanSquare: Double
    private var pose: Vector3?
    /// A convertible's base sensor's still pose: a fold of the base alone also brings the full rate back.
    private var basePose: Vector3?
    private var lastTime = -Double.infinity
    private var quietSince: Double?
    private var engineQuietSince: Double?

    /// Creates a policy at the full pace.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let start = configuration.minimumDeparture / max(configuration.noiseFactor, 1)
        meanSquare = start * start
    }

    /// The relative distance a reading may keep from the still pose and still count as still.
    public var band: Double {
        min(max(configuration.noiseFactor * noise, configuration.minimumDeparture), configuration.maximumDeparture)
    }

    /// Seconds from one read to the next at the current pace; 0 means every sample.
    public var interval: Double { pace == .slow ? configuration.slowInterval : 0 }

    /// Forgets the still pose and returns to the full pace, as after a gap or a new sensor.
    public mutating func reset() {
        pace = .full
        pose = nil
        basePose = nil
        quietSince = nil
        engineQuietSince = nil
        lastTime = -.infinity
    }

    /// Takes one sample (the one just fed to the engine) and whether the engine is quiet after it; returns the
    /// pace for the reads that follow.
    @discardableResult
    public mutating func update(_ sample: Sample, engineQuiet: Bool) -> Pace {
        let a = sample.acceleration
        let t = sample.time
        guard a.isUsable, t.isFinite else { return pace }
        let c = configuration
        let dt = t - lastTime
        lastTime = t
        guard let p = pose, dt >= 0 else {
            pose = a
            quietSince = nil
            pace = .full
            return pace
        }
        let scale = p.length
        let departure = scale > 0 ? (a - p).length / scale : .infinity
        let still = departure <= band && baseStill(sample.base, dt: dt)
        switch pace {
        case .slow:
            if still && engineQuiet {
                learnNoise(departure, dt: dt)
                // Follow a slow drift of the sensor (temperature) without letting a turn in.
                pose = p + (a - p) * (dt / (c.noiseTime * 4 + dt))
            } else {
                pace = .full
                quietSince = nil
                engineQuietSince = nil
                pose = a
            }
        case .full:
            guard engineQuiet else {
                pose = p + (a - p) * (dt / (c.poseTime + dt))
                quietSince = nil
                engineQuietSince = nil
                break
            }
            // The engine has just settled (published a change, or found the device at rest): the device is in
            // its new pose now, so the still pose starts from this reading rather than lag behind the turn.
            guard let settled = engineQuietSince else {
                engineQuietSince = t
                pose = a
                quietSince = t
                break
            }
            pose = p + (a - p) * (dt / (c.poseTime + dt))
            // Whatever scatter is left once the still pose has caught up is the sensor's noise (or the hand's
            // tremor), learned even beyond the band, so a noisy sensor can widen the band and slow down too.
            if t - settled >= c.poseTime { learnNoise(departure, dt: dt) }
            if still {
                let since = quietSince ?? t
                quietSince = since
                if t - since >= c.settleTime { pace = .slow }
            } else {
                quietSince = nil
            }
        }
        return pace
    }

    /// Whether a base reading stays within the widest band of the base's still pose (always, without one),
    /// following it.
    private mutating func baseStill(_ b: Vector3?, dt: Double) -> Bool {
        guard let b, b.isUsable else { return true }
        guard let p = basePose, p.length > 0 else {
            basePose = b
            return true
        }
        let still = (b - p).length / p.length <= configuration.maximumDeparture
        basePose = still ? p + (b - p) * (dt / (configuration.poseTime + dt)) : b
        return still
    }

    /// Learns from one departure, clipped to twice the largest band, so one jolt that the engine does not
    /// call motion cannot throw the estimate far.
    private mutating func learnNoise(_ departure: Double, dt: Double) {
        let d = min(departure, 2 * configuration.maximumDeparture)
        meanSquare += (d * d - meanSquare) * (dt / (configuration.noiseTime + dt))
    }
}
