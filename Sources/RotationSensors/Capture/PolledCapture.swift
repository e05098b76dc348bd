import RotationEngine
import RotationSystem

/// The polled mode: the accelerometer's raw attributes read at the configured rate while the device moves, with
/// a separate gyroscope's buffer (`GyroscopeBuffer`) or its raw attributes, and while still the motion event
/// (`EventWatch`), one axis at a time where a raw read sleeps in the driver (`AxisGlance`), or a full read once
/// every read interval. Owned by the sensor thread.
///
/// What is timed at the start to choose how to read a slow part (`quickenRawReads`, `checkPolledGyro`) is one
/// read each, so that the first rotation waits for no more; the first still spell times more reads
/// (`confirmSlowReads`, `confirmPolledGyro`), where a first read only held up by a loaded machine is found out.
struct PolledCapture {
    let part: CapturedPart
    let events: EventWatch

    /// When the next raw read is due, and at which pace.
    private struct Schedule {
        var next = MonotonicClock.now()
        /// Whether the sensor is read at the still pace.
        var slow = false
        /// Until then the sensor is read at the full rate whatever the sampling policy says: it moved.
        var holdUntil = -Double.infinity
    }

    /// Reads the part until the capture ends.
    func run() -> SensorCapture.Outcome {
        part.gyroBuffer = GyroscopeBuffer(part: part)
        if part.gyroBuffer?.open() == false { part.gyroBuffer = nil }
        // The buffer is disabled before the settings it was enabled under are put back.
        defer {
            part.gyroBuffer?.close()
            part.gyroBuffer = nil
        }
        if part.gyroBuffer == nil { part.checkPolledGyro() }
        let slowRead = quickenRawReads()
        var sleepsInDriver = slowRead != nil
        var confirmed = false
        let source = part.source
        var schedule = Schedule()
        while true {
            if source.stopRequested { return .stopped }
            switch part.takePolled() {
            case .failed(let error): return .failed(error)
            case .skipped: break
            case .sample(let sample): part.deliver(sample)
            }
            if source.readInterval > 0, MonotonicClock.now() >= schedule.holdUntil {
                // Nothing is written to the gyroscope while its buffer runs (the driver refuses it).
                part.gyroBuffer?.close()
                if !confirmed {
                    confirmed = true
                    part.confirmPolledGyro()
                    if let slowRead { sleepsInDriver = confirmSlowReads(slowRead) }
                }
                switch watchWhileStill(sleepsInDriver: sleepsInDriver) {
                case .moved:
                    fullRate(&schedule)
                    continue
                case .ended(let outcome):
                    return outcome
                case .unavailable:
                    break
                }
            }
            guard waitForNextRead(&schedule) else { return .stopped }
        }
    }

    /// While the sampling policy says still, with the gyroscope's buffer off: the sensor's motion event
    /// (`EventWatch`), else one axis at a time where a raw read sleeps in the driver (`AxisGlance`);
    /// `.unavailable` leaves the sensor to the still pace.
    private func watchWhileStill(sleepsInDriver: Bool) -> SensorCapture.StillEnd {
        var end = events.watchWhileStill(takeOne: part.takePolled)
        if case .moved = end { part.resumeFrequencies() }
        if case .unavailable = end, sleepsInDriver { end = AxisGlance(part: part).watchWhileStill() }
        return end
    }

    /// Reads at the full rate from now on, for `motionHold` at least, with the gyroscope's buffer running: the
    /// device moved (or may have, across a sleep of the system), and the turn is fused from the gyroscope's
    /// first scans on, whichever still mode saw it (`AxisGlance` turned the buffer on at its first glance that
    /// found the device moved).
    private func fullRate(_ schedule: inout Schedule) {
        schedule.holdUntil = MonotonicClock.now() + part.source.configuration.motionHold
        schedule.next = MonotonicClock.now()
        schedule.slow = false
        part.gyroBuffer?.open()
    }

    /// Sleeps until the next read, at the pace the sampling policy asked for after the last sample (one read per
    /// interval while still, the gyroscope's buffer off meanwhile); false when the capture is stopped.
    private func waitForNextRead(_ schedule: inout Schedule) -> Bool {
        let source = part.source, id = part.accel.id
        let still = MonotonicClock.now() >= schedule.holdUntil ? source.readInterval : 0
        if (still > 0) != schedule.slow {
            schedule.slow = still > 0
            if schedule.slow { part.gyroBuffer?.close() } else { part.gyroBuffer?.open() }
            Log.write(.debug, schedule.slow ? "\(id): the device is still: reading it every \(still) s"
                                                 : "\(id): the device moves: reading it at \(part.rate) Hz")
        }
        let step = schedule.slow ? still : 1 / part.rate
        schedule.next += step
        let now = MonotonicClock.now()
        if schedule.next < now - step { schedule.next = now + step }
        switch source.wait(until: schedule.next, id) {
        case .stopped:
            return false
        case .woke:
            // The device may have been turned while the system slept: read it now, at the full rate.
            fullRate(&schedule)
        case .due:
            part.due = schedule.next
        case .switched:
            // Read at once for the posture; the pace goes on from this read.
            part.due = nil
            schedule.next = MonotonicClock.now()
        }
        return true
    }

    /// What timing the accelerometer's first raw read found: how long it took at the chosen frequency, and at
    /// the highest one, when it was raised to it.
    struct SlowRead {
        var took: Double
        var raised: (hz: Double, took: Double)?
    }

    /// Whether a raw read of the accelerometer sleeps in the driver (takes longer than `slowRawRead`), from
    /// timing one read when polling starts, nil when it does not; `confirmSlowReads` times more once the device
    /// is still, and says what it found.
    ///
    /// Some drivers power the part up for each raw read and wait a few sample periods of its sampling frequency
    /// for it to settle: st_lsm6dsx three to four (`st_lsm6dsx_read_oneshot`), 58 to 77 ms at 52 Hz, for each
    /// axis. Such a part is polled at the highest frequency it lists, where the wait is a few ms, when a read
    /// then takes less time (put back when the capture ends, as every setting is): the driver powers the part
    /// for the read only, so the frequency costs nothing between reads, and three axes fit in a sample period.
    private func quickenRawReads() -> SlowRead? {
        guard let path = part.accelPaths.first else { return nil }
        var slow = SlowRead(took: CapturedPart.timedRead(path))
        guard slow.took > CapturedPart.slowRawRead else { return nil }
        guard let plan = part.accel.frequency, let top = plan.available.last ?? plan.range?.upperBound, top > plan.chosen,
              part.setAccelFrequency(top) else { return slow }
        let after = CapturedPart.timedRead(path)
        guard after < slow.took else {
            part.setAccelFrequency(plan.chosen)
            slow.raised = (top, after)
            return slow
        }
        part.polledHz = top
        slow.raised = (top, after)
        return slow
    }

    /// Whether the accelerometer's raw reads still sleep in the driver when timed again at its chosen frequency,
    /// the quickest of a few (`CapturedPart.quickest`), once the device is still: a first read that was only held
    /// up puts the frequency back and the part is read as any other; a slow part keeps the raised frequency, and
    /// the verdict is logged.
    private func confirmSlowReads(_ first: SlowRead) -> Bool {
        let accel = part.accel
        guard let path = part.accelPaths.first else { return false }
        let chosen = accel.frequency?.chosen ?? part.rate
        let raised = part.polledHz
        if raised != nil { part.setAccelFrequency(chosen) }
        let again = CapturedPart.quickest(within: CapturedPart.slowRawRead) { _ = SysfsNumber.read(path) }
        guard again > CapturedPart.slowRawRead else {
            part.polledHz = nil
            return false
        }
        if let raised { part.setAccelFrequency(raised) }
        let ms = { (t: Double) in "\(Int((t * 1000).rounded())) ms" }
        let name = "\(accel.id) (\(accel.name))", took = ms(min(first.took, again))
        switch (first.raised, raised) {
        case (let r?, _?):
            Log.once(.info, "\(name): one raw read takes \(took) at \(FrequencyPlan.text(chosen)) Hz, \(ms(r.took)) at \(FrequencyPlan.text(r.hz)) Hz (the driver waits for the part to settle): polling it at \(FrequencyPlan.text(r.hz)) Hz, one axis at a time while still")
        case (let r?, nil):
            Log.once(.info, "\(name): one raw read takes \(took), \(ms(r.took)) at \(FrequencyPlan.text(r.hz)) Hz: reading one axis at a time while still")
        default:
            Log.once(.info, "\(name): one raw read takes \(took): reading one axis at a time while still")
        }
        return true
    }
}
