import RotationEngine
import RotationProtocol
import RotationSystem

/// A separate gyroscope's buffered readings of the last second, and how an accelerometer sample is paired with
/// one: the reading nearest its time, or while the device has not moved since a reading last matched, the latest.
///
/// Shared by the modes that read such a gyroscope through its buffer: `BatchReader` beside a buffered
/// accelerometer, `GyroscopeBuffer` beside a polled one. A plain value, owned by the sensor thread.
struct GyroscopeReadings {
    /// How far the accelerometer's direction may have moved from where a gyroscope reading last matched for the
    /// latest reading to stand in for a missing one: farther than a still sensor's noise.
    static let standInAngle = 5.0

    /// The readings, in time order (CLOCK_MONOTONIC, s; rad/s in the device frame).
    private(set) var rates: [(time: Double, rate: Vector3)] = []
    /// The accelerometer's reading when one last matched a gyroscope reading.
    private var anchor: Vector3?

    /// Adds one reading, after every one before.
    mutating func append(_ time: Double, _ rate: Vector3) {
        rates.append((time, rate))
    }

    /// Adds every scan of `stream`'s last refill of `bytes` bytes, turned by `calibration` (scans spaced at `hz`
    /// where the stream has no timestamps).
    mutating func append(_ stream: BufferStream, bytes: Int, hz: Double, calibration: SensorCalibration) {
        let times = stream.times(bytes: bytes, hz: hz, now: MonotonicClock.now())
        stream.forEachScan(bytes: bytes) { i, _, v, _ in
            rates.append((times[i], calibration.apply(raw: Vector3(v[0], v[1], v[2]))))
        }
    }

    /// Forgets the readings older than a second before `now`.
    mutating func trim(_ now: Double) {
        if let cut = rates.firstIndex(where: { $0.time >= now - 1 }), cut > 0 { rates.removeFirst(cut) }
    }

    /// The reading nearest `time` within `window`, remembering `acceleration` as where it matched; nil when none
    /// lies within it.
    mutating func reading(at time: Double, acceleration: Vector3, within window: Double) -> Vector3? {
        var best: (Double, Vector3)?
        for r in rates.reversed() {
            let d = abs(r.time - time)
            if d <= window, best.map({ d < $0.0 }) ?? true { best = (d, r.rate) }
            if r.time < time - window { break }
        }
        if best != nil { anchor = acceleration }
        return best?.1
    }

    /// The latest reading, standing in for a missing one while `acceleration` shows the device where it was when
    /// a reading last matched (within `standInAngle`); nil past that point, where the device may be turning and a
    /// rate from before the turn must not say it is not.
    func standIn(for acceleration: Vector3) -> Vector3? {
        guard let anchor, let last = rates.last, GyroscopeReadings.within(GyroscopeReadings.standInAngle, anchor, acceleration) else {
            return nil
        }
        return last.rate
    }

    /// Whether directions `a` and `b` lie within `degrees` of each other.
    static func within(_ degrees: Double, _ a: Vector3, _ b: Vector3) -> Bool {
        let lengths = a.length * b.length
        return lengths > 0 && a.dot(b) >= lengths * Angles.cosDegrees(degrees)
    }
}
