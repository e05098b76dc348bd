import RotationProtocol

/// Checks the gyroscope against the accelerometer, and finds it wrong when the two disagree.
///
/// A gyroscope is trusted only as far as the accelerometer bears it out: a wrong scale attribute (raw counts
/// taken for rad/s, a factor of 1000 either way), a mount matrix that does not match the accelerometer's, or a
/// faulty sensor would otherwise turn the fused estimate where the device never went. Two tests, each of which a
/// sound gyroscope passes with a wide margin:
///
/// - **A rate while still.** Over windows of `window` seconds (three readings at least, however far apart:
///   the slow pace while still reads every 0.4 s) in which the accelerometer's direction stays within
///   `stillAngle` of where it started and |a| stays at the pose magnitude, the gyroscope's mean reading must
///   not turn that direction faster than `stillRate`. A rotation about gravity itself (spinning a device
///   that lies flat) turns nothing; on an uncalibrated sensor whose offsets tilt the measured direction up to
///   20° off the true vertical, such a spin shows a component across the measured direction too, but smaller
///   than the one along it, so only a rate that turns the direction more than it spins about it counts, or one
///   above `implausibleRate` about any axis, which no hand or table turns a device at while it reads still. A
///   sensor's bias is a few degrees per second. Two such windows in a row are a finding.
/// - **A turn the gyroscope did not follow.** The engine asks (`followed`) before a fused decision, and when
///   the accelerometer has settled in another quadrant than the fused estimate, a state a sound gyroscope
///   does not leave it in (it carries the estimate there first). The accelerometer's direction is compared
///   with where the
///   gyroscope carried the direction of the oldest reading of the last `history` seconds through which |a|
///   stayed at the pose magnitude (and had for `referenceTime` already, as a shaken reading can match it by
///   chance for a moment). When the accelerometer turned more than `turnAngle` and the two lie more than
///   `turnError` apart (or 60 % of the turn, if that is more), the turn was not followed: a scale 1000 times
///   too small carries the direction nowhere, a mount matrix that does not match carries it elsewhere. Such a
///   turn is a finding. A stretch in which one reading turns the direction by more than `coarseStep` (a
///   fast turn sampled slowly, or a scale far too large) cannot be integrated faithfully and is not judged;
///   the still test catches a scale far too large.
///
/// A finding is final for the engine's life: the caller decides from the accelerometer alone from then on.
/// Pure: it is fed directions and rates, and keeps no clock of its own.
struct GyroscopeCheck: Sendable {
    static let window = 0.25
    static let stillAngle = 5 * Angles.radiansPerDegree
    static let stillRate = 40 * Angles.radiansPerDegree
    static let implausibleRate = 1500 * Angles.radiansPerDegree
    static let history = 1.0
    static let referenceTime = 0.05
    static let turnAngle = 45 * Angles.radiansPerDegree
    static let turnError = 15 * Angles.radiansPerDegree
    static let coarseStep = 25 * Angles.radiansPerDegree

    /// The finding, once there is one.
    private(set) var finding: GyroscopeFinding?
    /// Whether the gyroscope has followed a turn of more than `turnAngle` to within 40 % of it (or `turnError`):
    /// it measures what the accelerometer sees, so what it does not measure did not happen.
    private(set) var confirmed = false

    /// One reading as the turn test keeps it.
    private struct Entry {
        var time: Double
        /// The accelerometer's direction.
        var direction: Vector3
        /// The gyroscope's attitude: world directions to the device frame, integrated from an arbitrary start.
        var attitude: Matrix
        /// Whether the gyroscope turned more than `coarseStep` in the step to this reading.
        var coarse: Bool
    }

    /// The readings kept, from `head` on; those before it have aged out and are dropped in bulk, so a reading
    /// costs no copy of the rest.
    private var recent: [Entry] = []
    private var head = 0
    private var lastInterval = 0.0
    private var attitude = Matrix.identity
    private var steadySince = -Double.infinity
    // The still test's window.
    private var windowStart = -Double.infinity
    private var windowDirection = Vector3.zero
    private var windowRate = Vector3.zero
    private var windowCount = 0
    private var windowSpread = 0.0
    private var strikes = 0

    /// Forgets the turn test's history (a gap in the readings, across which no rate can be integrated); the
    /// still test, which integrates nothing, goes on; a finding stays.
    mutating func restart() {
        recent.removeAll(keepingCapacity: true)
        head = 0
        steadySince = -.infinity
        lastInterval = 0
    }

    /// Feeds one gyroscope reading.
    ///
    /// - Parameters:
    ///   - time: the sample's time, s.
    ///   - dt: seconds since the previous reading (the caller restarts the check across a gap).
    ///   - accel: the accelerometer's gravity estimate (any length).
    ///   - steady: whether |a| is at the pose magnitude (the reading can stand for gravity).
    ///   - rate: the angular velocity as the gyroscope reads it, rad/s in the device frame (a bias learned from
    ///     the accelerometer is not removed: it is the gyroscope that is judged).
    mutating func update(time: Double, dt: Double, accel: Vector3, steady: Bool, rate: Vector3) {
        guard finding == nil else { return }
        let length = accel.length
        guard length > 0 else { return }
        let u = accel * (1 / length)
        // A change of cadence (a slow pace while still, readings dropped) leaves the path between the readings
        // unknown: the turn test starts again from here.
        if dt > 0, lastInterval > 0, dt > 1.5 * lastInterval || dt < lastInterval / 1.5 {
            recent.removeAll(keepingCapacity: true)
            head = 0
        }
        if dt > 0 { lastInterval = dt }
        var coarse = false
        if recent.count > head, dt > 0 {
            attitude = Matrix.rotation(by: rate, dt: dt) * attitude
            coarse = rate.length * dt > GyroscopeCheck.coarseStep
        }
        if !steady { steadySince = -.infinity } else if !steadySince.isFinite { steadySince = time }
        recent.append(Entry(time: time, direction: u, attitude: attitude, coarse: coarse))
        // Keep the readings of the last `history` seconds since |a| was last away from the pose magnitude.
        let oldest = max(time - GyroscopeCheck.history, steadySince)
        while recent[head].time < oldest { head += 1 }
        if head >= 64, 2 * head >= recent.count {
            recent.removeFirst(head)
            head = 0
        }
        judgeStillness(time: time, u: u, rate: rate, steady: steady)
    }

    /// Judges the turn that brought the accelerometer to `accel`: whether the gyroscope followed it (or it
    /// cannot be told); a turn it did not follow is a finding.
    @discardableResult
    mutating func followed(time: Double, accel: Vector3) -> Bool {
        guard finding == nil, accel.length > 0 else { return true }
        let u = accel * (1 / accel.length)
        let kept = recent[head...]
        let afterCoarse = kept.lastIndex(where: \.coarse).map { kept.index(after: $0) } ?? kept.startIndex
        let start = max(afterCoarse, kept.firstIndex { $0.time >= steadySince + GyroscopeCheck.referenceTime } ?? kept.endIndex)
        guard start < kept.endIndex else { return true }
        let old = kept[start]
        let turned = GyroscopeCheck.angle(old.direction, u)
        // Where the gyroscope carried the old direction: back to the world with the old attitude, then into the
        // device frame with the current one.
        let carried = attitude * (old.attitude.transposed * old.direction)
        let error = GyroscopeCheck.angle(carried, u)
        // Confirmed within 40 % of the turn: an uncalibrated accelerometer's offsets bend what it sees of a turn.
        if turned > GyroscopeCheck.turnAngle, error < max(GyroscopeCheck.turnError, 0.4 * turned) { confirmed = true }
        guard turned > GyroscopeCheck.turnAngle, error > max(GyroscopeCheck.turnError, 0.6 * turned) else { return true }
        finding = .turnNotFollowed(gyroDegrees: GyroscopeCheck.angle(old.direction, carried) / Angles.radiansPerDegree,
                                   accelDegrees: turned / Angles.radiansPerDegree, windowSeconds: time - old.time)
        return false
    }

    private mutating func judgeStillness(time: Double, u: Vector3, rate: Vector3, steady: Bool) {
        guard steady else {
            windowStart = -.infinity
            return
        }
        guard windowStart.isFinite else {
            startWindow(time, u, rate)
            return
        }
        windowRate = windowRate + rate
        windowCount += 1
        windowSpread = max(windowSpread, GyroscopeCheck.angle(windowDirection, u))
        guard time - windowStart >= GyroscopeCheck.window, windowCount >= 3 else { return }
        if windowSpread < GyroscopeCheck.stillAngle {
            let mean = windowRate * (1 / Double(windowCount))
            let along = abs(mean.dot(u)), across = mean.cross(u).length
            if across > GyroscopeCheck.stillRate && across > along || mean.length > GyroscopeCheck.implausibleRate {
                strikes += 1
                if strikes >= 2 {
                    finding = .rateWhileStill(degreesPerSecond: max(across, mean.length) / Angles.radiansPerDegree)
                    return
                }
            } else {
                strikes = 0
            }
        } else {
            strikes = 0
        }
        startWindow(time, u, rate)
    }

    private mutating func startWindow(_ time: Double, _ u: Vector3, _ rate: Vector3) {
        windowStart = time
        windowDirection = u
        windowRate = rate
        windowCount = 1
        windowSpread = 0
    }

    /// The angle between two directions, radians.
    static func angle(_ a: Vector3, _ b: Vector3) -> Double {
        Angles.atan2(a.cross(b).length, a.dot(b))
    }

    /// A 3×3 matrix, by rows: the gyroscope's attitude.
    struct Matrix: Sendable {
        var r0: Vector3
        var r1: Vector3
        var r2: Vector3

        static let identity = Matrix(r0: Vector3(1, 0, 0), r1: Vector3(0, 1, 0), r2: Vector3(0, 0, 1))

        /// What a world-fixed direction undergoes in the device frame while the device turns by `rate` for
        /// `dt` seconds: a rotation about the rate's axis by −|rate|·dt (Rodrigues).
        static func rotation(by rate: Vector3, dt: Double) -> Matrix {
            let speed = rate.length
            let phi = -speed * dt
            guard speed > 0, abs(phi) > 1e-12 else { return .identity }
            let k = rate * (1 / speed)
            let degrees = phi / Angles.radiansPerDegree
            let s = Angles.sinDegrees(degrees), c = Angles.cosDegrees(degrees), t = 1 - c
            return Matrix(r0: Vector3(c + k.x * k.x * t, k.x * k.y * t - k.z * s, k.x * k.z * t + k.y * s),
                          r1: Vector3(k.y * k.x * t + k.z * s, c + k.y * k.y * t, k.y * k.z * t - k.x * s),
                          r2: Vector3(k.z * k.x * t - k.y * s, k.z * k.y * t + k.x * s, c + k.z * k.z * t))
        }

        var transposed: Matrix {
            Matrix(r0: Vector3(r0.x, r1.x, r2.x), r1: Vector3(r0.y, r1.y, r2.y), r2: Vector3(r0.z, r1.z, r2.z))
        }

        static func * (m: Matrix, v: Vector3) -> Vector3 { Vector3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v)) }

        static func * (a: Matrix, b: Matrix) -> Matrix {
            let t = b.transposed
            return Matrix(r0: Vector3(a.r0.dot(t.r0), a.r0.dot(t.r1), a.r0.dot(t.r2)),
                          r1: Vector3(a.r1.dot(t.r0), a.r1.dot(t.r1), a.r1.dot(t.r2)),
                          r2: Vector3(a.r2.dot(t.r0), a.r2.dot(t.r1), a.r2.dot(t.r2)))
        }
    }
}
