import RotationSystem

/// The still mode of a polled sensor whose raw reads sleep in the driver: one axis read once every read interval
/// instead of three, so each read costs a wake-up for the timer and one for the driver's sleep.
///
/// A glance that finds the device where it was delivers nothing (as while watching for motion: the policy stays
/// at the still pace without it); one that does not is followed by a full read, delivered when it finds the
/// device moved (`CapturedSensor.movedDeparture`), which ends the still pace. A separate gyroscope's buffer
/// (`GyroscopeBuffer`), off while still, is turned on at that glance. Owned by the sensor thread.
struct AxisGlanceStill: StillMode {
    let sensor: CapturedSensor

    /// Glances until the device moves or the capture ends.
    func runWhileStill(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd {
        let accel = sensor.accel, source = sensor.source
        Log.debug("\(accel.id): the device is still: reading one axis every \(source.readInterval) s (a raw read sleeps in the driver)")
        var next = MonotonicClock.now()
        while true {
            next = max(next + source.readInterval, MonotonicClock.now())
            switch source.wait(until: next, accel.id) {
            case .stopped: return .ended(.stopped)
            case .woke: return .moved
            case .due: sensor.due = next
            case .switched:
                sensor.due = nil
                if let error = sensor.readSwitch(takeOne: takeOne) { return .ended(.failed(error)) }
                continue
            }
            if sensor.glance() { continue }
            // The first sign of motion: a separate gyroscope's buffer on at once, so that its scans come from the
            // first samples of the turn on; off again when the full read finds the device where it was.
            sensor.gyroBuffer?.open()
            switch takeOne() {
            case .failed(let error):
                return .ended(.failed(error))
            case .skipped:
                sensor.gyroBuffer?.close()
                continue
            case .sample(let sample):
                if !sensor.departs(sample) {
                    sensor.gyroBuffer?.close()
                    continue
                }
                sensor.deliver(sample)
                if source.stopRequested { return .ended(.stopped) }
                Log.debug("\(accel.id): the device moves: reading it at \(sensor.rate) Hz")
                return .moved
            }
        }
    }
}
