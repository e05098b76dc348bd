import RotationProtocol

/// One pose of the guided mount fix being held, from the readings that come in: pure, fed one reading at a time.
///
/// The pose goes through its phases in order: `turning` (only when the pose before must be left first: the
/// reading has to move `turn` degrees away from it, so that a device still in the last pose is not taken for the
/// next), `settling` (the readings of the last `settle` seconds all within `still` of their mean, a tremor's
/// worth), `measuring` (`measure` seconds, whose mean is the pose's reading), and `held`. A reading more than
/// `moved` away from the settled mean while measuring ends the pose as `moved`: the device moved while it was
/// measured. Tolerances are fractions of the reading's own length, so they hold whatever the sensor's scale.
public struct PoseHold: Sendable {
    /// The thresholds and times of a hold.
    public struct Timing: Sendable, Hashable {
        /// Seconds the readings must stay within `still` before the measurement starts.
        public var settle = 0.4
        /// Seconds the pose is measured for.
        public var measure = 1.0
        /// How far (a fraction of gravity's length) readings may wander while the device counts as still: 0.05,
        /// about 3°, is a hand's tremor with room to spare.
        public var still = 0.05
        /// How far (a fraction of gravity's length) a reading may stray from the settled mean while measuring:
        /// 0.15, about 9°.
        public var moved = 0.15
        /// How far (degrees) the device must turn away from the pose before a new one is looked for.
        public var turn = 30.0

        /// The defaults.
        public init() {}
    }

    /// Where the hold stands.
    public enum Phase: Sendable, Hashable {
        /// Waiting for the device to turn away from the previous pose.
        case turning
        /// Waiting for the device to be still; `progress` from 0 to 1.
        case settling(progress: Double)
        /// Measuring the pose; `progress` from 0 to 1.
        case measuring(progress: Double)
        /// Done: the mean reading while measuring, and how far (degrees) the farthest reading strayed from it.
        case held(reading: Vector3, spread: Double)
        /// The device moved by `degrees` while the pose was measured.
        case moved(degrees: Double)
    }

    /// The thresholds and times.
    public let timing: Timing
    /// The phase after the last reading.
    public private(set) var phase: Phase
    private let previous: Vector3?
    private var window: [(t: Double, v: Vector3)] = []
    private var settled: Vector3?
    private var measureStart = 0.0

    /// A hold that first waits for the device to turn `timing.turn` degrees away from `previous`, when given.
    public init(leaving previous: Vector3? = nil, timing: Timing = Timing()) {
        self.previous = previous
        self.timing = timing
        phase = previous == nil ? .settling(progress: 0) : .turning
    }

    /// Takes the reading `v` made at `t` seconds (any monotonic origin) and returns the new phase. Readings that
    /// are not usable (zero, or not finite) are ignored; once `held` or `moved`, the phase no longer changes.
    @discardableResult
    public mutating func add(_ v: Vector3, at t: Double) -> Phase {
        guard v.isUsable else { return phase }
        switch phase {
        case .held, .moved:
            break
        case .turning:
            if let previous, MountSolver.angle(previous, v) > timing.turn {
                phase = .settling(progress: 0)
                window = [(t, v)]
            }
        case .settling:
            settle(v, at: t)
        case .measuring:
            measure(v, at: t)
        }
        return phase
    }

    private mutating func settle(_ v: Vector3, at t: Double) {
        window.append((t, v))
        // The window keeps the readings since the earliest one from which all stay near their mean.
        while window.count > 1, !Self.within(window, timing.still) { window.removeFirst() }
        let span = t - window[0].t
        guard span >= timing.settle else {
            phase = .settling(progress: max(0, span / timing.settle))
            return
        }
        settled = Self.mean(window.map(\.v))
        window = [(t, v)]
        measureStart = t
        phase = .measuring(progress: 0)
    }

    private mutating func measure(_ v: Vector3, at t: Double) {
        guard let settled else { return }
        if (v - settled).length > timing.moved * settled.length {
            phase = .moved(degrees: MountSolver.angle(settled, v))
            return
        }
        window.append((t, v))
        let span = t - measureStart
        guard span >= timing.measure else {
            phase = .measuring(progress: span / timing.measure)
            return
        }
        let mean = Self.mean(window.map(\.v))
        phase = .held(reading: mean, spread: window.map { MountSolver.angle(mean, $0.v) }.max() ?? 0)
    }

    /// Whether every reading of `window` lies within `fraction` of their mean's length from the mean.
    static func within(_ window: [(t: Double, v: Vector3)], _ fraction: Double) -> Bool {
        let m = mean(window.map(\.v))
        return window.allSatisfy { ($0.v - m).length <= fraction * m.length }
    }

    /// The mean of `vectors`.
    static func mean(_ vectors: [Vector3]) -> Vector3 {
        vectors.reduce(Vector3.zero, +) * (1 / Double(max(1, vectors.count)))
    }
}
