import RotationEngine
import RotationSystem

/// The still mode of a polled part whose raw reads sleep in the driver: one axis read once every read interval
/// instead of three, so each read costs a wake-up for the timer and one for the driver's sleep.
///
/// A glance that finds the device where it was delivers nothing (as while watching for motion: the policy stays
/// at the still pace without it); one that does not is followed by a full read, delivered when it finds the
/// device moved (`CapturedPart.movedDeparture`), which ends the still pace. A separate gyroscope's buffer
/// (`GyroscopeBuffer`), off while still, is turned on at that glance. Owned by the sensor thread.
struct AxisGlance {
    let part: CapturedPart

    /// Glances until the device moves or the capture ends.
    func watchWhileStill() -> SensorCapture.StillEnd {
        let accel = part.accel, source = part.source
        Log.write(.debug, "\(accel.id): the device is still: reading one axis every \(source.readInterval) s (a raw read sleeps in the driver)")
        var next = MonotonicClock.now()
        while true {
            next = max(next + source.readInterval, MonotonicClock.now())
            switch source.wait(until: next, accel.id) {
            case .stopped: return .ended(.stopped)
            case .woke: return .moved
            case .due: part.due = next
            case .switched:
                part.due = nil
                if let error = part.readSwitch(takeOne: part.takePolled) { return .ended(.failed(error)) }
                continue
            }
            if part.glance() { continue }
            // The first sign of motion: a separate gyroscope's buffer on at once, so that its scans come from the
            // first samples of the turn on; off again when the full read finds the device where it was.
            part.gyroBuffer?.open()
            switch part.takePolled() {
            case .failed(let error):
                return .ended(.failed(error))
            case .skipped:
                part.gyroBuffer?.close()
                continue
            case .sample(let sample):
                if !part.departs(sample) {
                    part.gyroBuffer?.close()
                    continue
                }
                part.deliver(sample)
                if source.stopRequested { return .ended(.stopped) }
                Log.write(.debug, "\(accel.id): the device moves: reading it at \(part.rate) Hz")
                return .moved
            }
        }
    }
}
