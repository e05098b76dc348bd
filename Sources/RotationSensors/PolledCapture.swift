import RotationEngine

/// The polled mode: the accelerometer's (and a polled gyroscope's) raw attributes read at the configured rate
/// while the device moves, and while still the motion event (`EventWatch`), one axis at a time where a raw read
/// sleeps in the driver (`AxisGlance`), or a full read once every read interval. Owned by the sensor thread.
struct PolledCapture {
    let part: CapturedPart
    let events: EventWatch

    /// Reads the part until the capture ends.
    func run() -> SensorCapture.Outcome {
        part.keepPolledGyroIfFast()
        let sleepsInDriver = quickenRawReads()
        let source = part.source, id = part.accel.id
        let full = 1 / part.rate
        var next = MonotonicClock.now()
        var slow = false
        var holdUntil = -Double.infinity
        while true {
            if source.stopRequested { return .stopped }
            switch part.takePolled() {
            case .failed(let error): return .failed(error)
            case .skipped: break
            case .sample(let sample): part.deliver(sample)
            }
            if source.readInterval > 0, MonotonicClock.now() >= holdUntil {
                var end = events.watchWhileStill(takeOne: part.takePolled)
                if case .moved = end { part.resumeFrequencies() }
                if case .unavailable = end, sleepsInDriver { end = AxisGlance(part: part).watchWhileStill() }
                switch end {
                case .moved:
                    holdUntil = MonotonicClock.now() + source.configuration.motionHold
                    next = MonotonicClock.now()
                    slow = false
                    continue
                case .ended(let outcome):
                    return outcome
                case .unavailable:
                    break
                }
            }
            // The pace the sampling policy asked for after this sample: one read per interval while still.
            let still = MonotonicClock.now() >= holdUntil ? source.readInterval : 0
            if (still > 0) != slow {
                slow = still > 0
                SensorLog.write(.debug, slow ? "\(id): the device is still: reading it every \(still) s"
                                            : "\(id): the device moves: reading it at \(part.rate) Hz")
            }
            let step = slow ? still : full
            next += step
            let now = MonotonicClock.now()
            if next < now - step { next = now + step }
            switch source.wait(until: next, id) {
            case .stopped:
                return .stopped
            case .woke:
                // The device may have been turned while the system slept: read it now, at the full rate.
                holdUntil = MonotonicClock.now() + source.configuration.motionHold
                next = MonotonicClock.now()
                slow = false
            case .due:
                part.due = next
            }
        }
    }

    /// Whether a raw read of the accelerometer sleeps in the driver (takes longer than `slowRawRead`), found by
    /// timing reads when polling starts (the quickest of a few, `CapturedPart.quickest`).
    ///
    /// Some drivers power the part up for each raw read and wait a few sample periods of its sampling frequency
    /// for it to settle: st_lsm6dsx three to four (`st_lsm6dsx_read_oneshot`), 58 to 77 ms at 52 Hz, for each
    /// axis. Such a part is polled at the highest frequency it lists, where the wait is a few ms, when a read
    /// then takes less time (put back when the capture ends, as every setting is): the driver powers the part
    /// for the read only, so the frequency costs nothing between reads, and three axes fit in a sample period.
    private func quickenRawReads() -> Bool {
        let accel = part.accel
        guard let path = part.accelPaths.first else { return false }
        func timed() -> Double { CapturedPart.quickest(within: CapturedPart.slowRawRead) { _ = SysfsNumber.read(path) } }
        let before = timed()
        guard before > CapturedPart.slowRawRead else { return false }
        let ms = { (t: Double) in "\(Int((t * 1000).rounded())) ms" }
        guard let plan = accel.frequency, let top = plan.available.last ?? plan.range?.upperBound, top > plan.chosen,
              part.setAccelFrequency(top) else {
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)): reading one axis at a time while still")
            return true
        }
        let after = timed()
        guard after < before else {
            part.setAccelFrequency(plan.chosen)
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)), \(ms(after)) at \(FrequencyPlan.text(top)) Hz: reading one axis at a time while still")
            return true
        }
        part.polledHz = top
        SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)) at \(FrequencyPlan.text(plan.chosen)) Hz, \(ms(after)) at \(FrequencyPlan.text(top)) Hz (the driver waits for the part to settle): polling it at \(FrequencyPlan.text(top)) Hz, one axis at a time while still")
        return true
    }
}
