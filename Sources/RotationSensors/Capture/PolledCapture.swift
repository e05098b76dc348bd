import RotationSystem

/// The polled mode: the accelerometer's raw attributes read at the configured rate while the device moves, with a
/// separate gyroscope's buffer (`GyroscopeBuffer`) or its raw attributes, and while still the motion event
/// (`MotionEventStill`), one axis at a time where a raw read sleeps in the driver (`AxisGlanceStill`), or a full read
/// once every read interval. Owned by the sensor thread.
///
/// What is timed at the start to choose how to read a slow sensor (`quickenRawReads`, `checkPolledGyro`) is one
/// read each, so that the first rotation waits for no more; the first still spell times more reads
/// (`confirmSlowReads`, `confirmPolledGyro`), where a first read only held up by a loaded machine is found out.
struct PolledCapture {
    let sensor: CapturedSensor
    let motionEvent: MotionEventStill

    /// When the next raw read is due, and at which pace.
    private struct Schedule {
        var next = MonotonicClock.now()
        /// Whether the sensor is read at the still pace.
        var slow = false
        /// Until then the sensor is read at the full rate whatever the sampling policy says: it moved.
        var holdUntil = -Double.infinity
    }

    /// Reads the sensor until the capture ends.
    func run() -> SensorCapture.Outcome {
        sensor.gyroBuffer = GyroscopeBuffer(sensor: sensor)
        if sensor.gyroBuffer?.open() == false { sensor.gyroBuffer = nil }
        // The buffer is disabled before the settings it was enabled under are put back.
        defer {
            sensor.gyroBuffer?.close()
            sensor.gyroBuffer = nil
        }
        if sensor.gyroBuffer == nil { sensor.checkPolledGyro() }
        let slowRead = quickenRawReads()
        var sleepsInDriver = slowRead != nil
        var confirmed = false
        let source = sensor.source
        var schedule = Schedule()
        while true {
            if source.stopRequested { return .stopped }
            switch sensor.takePolled() {
            case .failed(let error): return .failed(error)
            case .skipped: break
            case .sample(let sample): sensor.deliver(sample)
            }
            if source.readInterval > 0, MonotonicClock.now() >= schedule.holdUntil {
                // Nothing is written to the gyroscope while its buffer runs (the driver refuses it).
                sensor.gyroBuffer?.close()
                if !confirmed {
                    confirmed = true
                    sensor.confirmPolledGyro()
                    if let slowRead { sleepsInDriver = confirmSlowReads(slowRead) }
                }
                switch runWhileStill(sleepsInDriver: sleepsInDriver) {
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
    /// (`MotionEventStill`), else one axis at a time where a raw read sleeps in the driver (`AxisGlanceStill`);
    /// `.unavailable` leaves the sensor to the still pace.
    private func runWhileStill(sleepsInDriver: Bool) -> SensorCapture.StillEnd {
        var end = motionEvent.runWhileStill(takeOne: sensor.takePolled)
        if case .moved = end { sensor.resumeFrequencies() }
        if case .unavailable = end, sleepsInDriver { end = AxisGlanceStill(sensor: sensor).runWhileStill(takeOne: sensor.takePolled) }
        return end
    }

    /// Reads at the full rate from now on, for `motionHold` at least, with the gyroscope's buffer running: the
    /// device moved (or may have, across a sleep of the system), and the turn is fused from the gyroscope's
    /// first scans on, whichever still mode saw it (`AxisGlanceStill` turned the buffer on at its first glance that
    /// found the device moved).
    private func fullRate(_ schedule: inout Schedule) {
        schedule.holdUntil = MonotonicClock.now() + sensor.source.configuration.motionHold
        schedule.next = MonotonicClock.now()
        schedule.slow = false
        sensor.gyroBuffer?.open()
    }

    /// Sleeps until the next read, at the pace the sampling policy asked for after the last sample (one read per
    /// interval while still, the gyroscope's buffer off meanwhile); false when the capture is stopped.
    private func waitForNextRead(_ schedule: inout Schedule) -> Bool {
        let source = sensor.source, id = sensor.accel.id
        let still = MonotonicClock.now() >= schedule.holdUntil ? source.readInterval : 0
        if (still > 0) != schedule.slow {
            schedule.slow = still > 0
            if schedule.slow { sensor.gyroBuffer?.close() } else { sensor.gyroBuffer?.open() }
            Log.debug(schedule.slow ? "\(id): the device is still: reading it every \(still) s"
                                                 : "\(id): the device moves: reading it at \(sensor.rate) Hz")
        }
        let step = schedule.slow ? still : 1 / sensor.rate
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
            sensor.due = schedule.next
        case .switched:
            // Read at once for the posture; the pace goes on from this read.
            sensor.due = nil
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
    /// Some drivers power the sensor up for each raw read and wait a few sample periods of its sampling frequency
    /// for it to settle: st_lsm6dsx three to four (`st_lsm6dsx_read_oneshot`), 58 to 77 ms at 52 Hz, for each
    /// axis. Such a sensor is polled at the highest frequency it lists, where the wait is a few ms, when a read
    /// then takes less time (put back when the capture ends, as every setting is): the driver powers the sensor
    /// for the read only, so the frequency costs nothing between reads, and three axes fit in a sample period.
    private func quickenRawReads() -> SlowRead? {
        guard let path = sensor.accelPaths.first else { return nil }
        var slow = SlowRead(took: CapturedSensor.timedRead(path))
        guard slow.took > CapturedSensor.slowRawRead else { return nil }
        guard let plan = sensor.accel.frequency, let top = plan.available.last ?? plan.range?.upperBound, top > plan.chosen,
              sensor.setAccelFrequency(top) else { return slow }
        let after = CapturedSensor.timedRead(path)
        guard after < slow.took else {
            sensor.setAccelFrequency(plan.chosen)
            slow.raised = (top, after)
            return slow
        }
        sensor.polledHz = top
        slow.raised = (top, after)
        return slow
    }

    /// Whether the accelerometer's raw reads still sleep in the driver when timed again at its chosen frequency,
    /// the quickest of a few (`CapturedSensor.quickest`), once the device is still: a first read that was only held
    /// up puts the frequency back and the sensor is read as any other; a slow sensor keeps the raised frequency, and
    /// the verdict is logged.
    private func confirmSlowReads(_ first: SlowRead) -> Bool {
        let accel = sensor.accel
        guard let path = sensor.accelPaths.first else { return false }
        let chosen = accel.frequency?.chosen ?? sensor.rate
        let raised = sensor.polledHz
        if raised != nil { sensor.setAccelFrequency(chosen) }
        let again = CapturedSensor.quickest(within: CapturedSensor.slowRawRead) { _ = SysfsNumber.read(path) }
        guard again > CapturedSensor.slowRawRead else {
            sensor.polledHz = nil
            return false
        }
        if let raised { sensor.setAccelFrequency(raised) }
        let ms = { (t: Double) in "\(Int((t * 1000).rounded())) ms" }
        let name = "\(accel.id) (\(accel.name))", took = ms(min(first.took, again))
        switch (first.raised, raised) {
        case (let r?, _?):
            Log.once(.info, "\(name): one raw read takes \(took) at \(FrequencyPlan.text(chosen)) Hz, \(ms(r.took)) at \(FrequencyPlan.text(r.hz)) Hz (the driver waits for the sensor to settle): polling it at \(FrequencyPlan.text(r.hz)) Hz, one axis at a time while still")
        case (let r?, nil):
            Log.once(.info, "\(name): one raw read takes \(took), \(ms(r.took)) at \(FrequencyPlan.text(r.hz)) Hz: reading one axis at a time while still")
        default:
            Log.once(.info, "\(name): one raw read takes \(took): reading one axis at a time while still")
        }
        return true
    }
}
