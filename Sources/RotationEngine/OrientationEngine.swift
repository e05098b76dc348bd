/// Turns calibrated samples into a device rotation, a tilt class and a flat flag.
///
/// The engine is a value with no I/O and no clock of its own: replay, live input and tests drive the same
/// code by calling `process(_:)` with samples in time order.
public struct OrientationEngine: Sendable {
    /// The thresholds in force.
    public let configuration: EngineConfiguration
    /// The state last published.
    public private(set) var state: DeviceState = .initial

    private var gravity: Vector3 = .zero
    private var lastTime: Double = -.infinity
    private var started = false
    private var motionUntil: Double = -.infinity
    private var candidate: Rotation?
    private var candidateSince: Double = 0

    /// Creates an engine with the given thresholds.
    public init(configuration: EngineConfiguration = .default) {
        self.configuration = configuration
    }

    /// Feeds one sample; returns the new state when the published state changed, else nil.
    ///
    /// A sample with a NaN, infinite or zero acceleration, or a time that runs backwards, is ignored and
    /// changes nothing.
    public mutating func process(_ sample: Sample) -> DeviceState? {
        let a = sample.acceleration
        guard a.isUsable, sample.time.isFinite else { return nil }
        let c = configuration
        let dt = sample.time - lastTime
        if started && dt < 0 { return nil }
        if !started || dt > c.maxGap {
            restart(with: sample)
        } else {
            let alpha = dt / (c.smoothingTime + dt)
            gravity = gravity + (a - gravity) * alpha
        }
        lastTime = sample.time

        let g = a.length
        if abs(g - c.gravity) > c.motionTolerance * c.gravity { motionUntil = sample.time + c.motionHoldoff }

        var next = state
        let f = gravity
        let inPlane = (f.x * f.x + f.y * f.y).squareRoot()
        let elevation = Angles.atan2Degrees(f.z, inPlane)

        if state.flat {
            if abs(elevation) < c.flatExitAngle { next.flat = false }
        } else if abs(elevation) > c.flatEnterAngle {
            next.flat = true
        }
        next.tilt = tiltClass(elevation: elevation, flat: next.flat)

        if next.flat || sample.time < motionUntil {
            candidate = nil
        } else {
            // Clockwise angle of the device from upright: upright (0, −g) is 0°, left edge up (+g, 0) is 90°.
            let angle = Angles.atan2Degrees(f.x, -f.y)
            let proposal = quadrant(angle: angle, current: state.rotation)
            if proposal == state.rotation {
                candidate = nil
            } else if proposal != candidate {
                candidate = proposal
                candidateSince = sample.time
            } else if sample.time - candidateSince >= c.dwellTime {
                next.rotation = proposal
                candidate = nil
            }
        }
        guard next != state else { return nil }
        state = next
        return next
    }

    /// Forgets every sample seen so far; the published state stays until the next decision.
    public mutating func reset() {
        started = false
        candidate = nil
        motionUntil = -.infinity
    }

    private mutating func restart(with sample: Sample) {
        started = true
        gravity = sample.acceleration
        candidate = nil
        motionUntil = -.infinity
    }

    /// The quadrant for `angle`, keeping `current` until the angle is `boundaryHysteresis` past its diagonal.
    private func quadrant(angle: Double, current: Rotation?) -> Rotation {
        if let current, Angles.distance(angle, Double(current.degrees)) <= 45 + configuration.boundaryHysteresis {
            return current
        }
        let q = Int(((angle + 45).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 90)
        return Rotation(degrees: q * 90) ?? .normal
    }

    private func tiltClass(elevation: Double, flat: Bool) -> Tilt {
        if flat { return elevation >= 0 ? .faceUp : .faceDown }
        if abs(elevation) <= configuration.verticalLimit { return .vertical }
        return elevation > 0 ? .tiltedUp : .tiltedDown
    }
}
