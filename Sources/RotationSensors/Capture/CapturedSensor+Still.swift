import RotationProtocol
import RotationSystem

/// What a capture reads while the device is still: the fold beside a sleeping display, a switch's change, and the
/// safety read (a glance at one axis, then a full read) that finds a device moved without its own report.
extension CapturedSensor {
    /// Whether the fold has a sensor `foldRead` reads while the display sleeps on its motion event: a base sensor
    /// read, or a hinge sensor.
    var readsFoldWhileStill: Bool { base?.sensor != nil || hinge != nil }

    /// While the display sleeps on its motion event, every `foldReadInterval`, at a safety read, or when the base
    /// reported motion (`baseReported`: the base is read then, however recently it was): the base and the hinge sensor
    /// read, and, when either departs from its reading last delivered (the base's by `movedDeparture` of its gravity,
    /// the hinge by `hingeDeparture`), one sample taken with `takeOne` and delivered with them, as a sensor's own
    /// report of motion would be (and logged); the engine then follows the fold at the full rate until both panels are
    /// still.
    func foldRead(takeOne: () -> Taken, baseReported: Bool = false) -> SafetyRead {
        let now = MonotonicClock.now()
        let b = base?.reading(at: now, asked: baseReported), h = hinge?.reading(at: now)
        var moved = false
        if let b, let last = lastBase { moved = (b - last).length > CapturedSensor.movedDeparture * max(last.length, 1) }
        else if b != nil { moved = true }
        if let h, let last = lastHinge { moved = moved || abs(h - last) > CapturedSensor.hingeDeparture }
        else if h != nil { moved = true }
        guard moved else { return .unmoved }
        switch takeOne() {
        case .failed(let error): return .failed(error)
        case .skipped: return .unmoved
        case .sample(var sample):
            if sample.base == nil { sample.base = b }
            if sample.hinge == nil { sample.hinge = h }
            deliver(sample)
            Log.debug("\(accel.id): the fold moved while the display was still: reading it at \(FrequencyPlan.text(rate)) Hz")
            return .moved
        }
    }

    /// While still, after a switch changed (`SensorSource.WaitEnd.switched`): one sample taken with `takeOne` and
    /// delivered whether or not the device moved, so that the posture follows the switch at once; the error
    /// when the read failed.
    func readSwitch(takeOne: () -> Taken) -> SensorError? {
        switch takeOne() {
        case .failed(let error):
            return error
        case .skipped:
            return nil
        case .sample(let sample):
            deliver(sample)
            return nil
        }
    }

    /// What a safety read while still found.
    enum SafetyRead {
        /// The device where it was: nothing delivered.
        case unmoved
        /// The device moved: the reading was delivered.
        case moved
        /// The read failed.
        case failed(SensorError)
    }

    /// A read while still, in case the sensor's own report of motion was lost: a glance at one axis, and a full read
    /// with `takeOne` only when the glance finds it moved, delivered when it departs from the last pose (a sample
    /// that does not is not delivered: the engine would take the gap before it for a restart, and the policy
    /// would ask for the full rate).
    func safetyRead(takeOne: () -> Taken) -> SafetyRead {
        if glance() { return .unmoved }
        switch takeOne() {
        case .failed(let error): return .failed(error)
        case .skipped: return .unmoved
        case .sample(let sample):
            guard departs(sample) else { return .unmoved }
            deliver(sample)
            return .moved
        }
    }

    /// Whether `sample` finds the device more than `movedDeparture` from the last pose delivered (always, with none).
    func departs(_ sample: Sample) -> Bool {
        guard let pose = lastAcceleration, pose.length > 0 else { return true }
        return (sample.acceleration - pose).length > CapturedSensor.movedDeparture * pose.length
    }

    /// Whether one raw read, of the axis that tells most about a turn from where the device was (the sensor axis
    /// behind the larger of the device's x and y components of gravity; behind z when the device lies flat,
    /// where only lifting it matters), finds it unmoved (`glanceDeparture`). A quarter turn takes that component
    /// to nearly 0, a half turn reverses it. One read instead of three: some drivers sleep for each.
    func glance() -> Bool {
        guard let raw = lastRaw else { return false }
        let c = accel.calibration
        let pose = c.apply(raw: raw)
        let g = pose.length
        guard g > 0 else { return false }
        let row = (pose.x * pose.x + pose.y * pose.y).squareRoot() >= 0.5 * g
            ? (abs(pose.x) >= abs(pose.y) ? c.matrix.row0 : c.matrix.row1) : c.matrix.row2
        let weights = [row.x * c.scale.x, row.y * c.scale.y, row.z * c.scale.z]
        let axis = weights.indices.max { abs(weights[$0]) < abs(weights[$1]) }!
        guard axis < accelPaths.count, case .success(let now) = SysfsNumber.read(accelPaths[axis]) else { return false }
        let before = [raw.x, raw.y, raw.z][axis]
        return abs((now - before) * weights[axis]) <= CapturedSensor.glanceDeparture * g
    }
}
