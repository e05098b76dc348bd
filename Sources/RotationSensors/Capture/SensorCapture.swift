
/// One capture from an opened accelerometer (and gyroscope) until it stops, fails or the device goes away: the
/// one place that chooses how the sensor is read.
///
/// Runs on the `SensorSource` thread and owns nothing beyond that run: the context belongs to the session.
/// The modes, each a type of its own, share the sensor (`CapturedSensor`):
/// - `BufferedCapture`: the buffer, read in batches (`BatchReader`) at a pace that follows the sampling policy;
/// - `PolledCapture`: the raw attributes at the configured rate, where holding the buffer would refuse another
///   reader of the device (`CapturePlan`), or the buffer cannot run;
/// - while still, in either: `MotionEventStill` (the sensor's motion event armed, nothing read until it fires) where
///   the driver offers one, `AxisGlanceStill` (one axis per read interval) for a polled sensor whose raw reads sleep in
///   the driver, else a read (or a batch) at the still pace.
///
/// Everything written is put back when the capture ends (`SensorSettings`).
final class SensorCapture {
    /// How a capture (or a discovery) ended.
    enum Outcome: Error {
        /// `stop()` was called.
        case stopped
        /// No usable sensor; the message says what was looked for.
        case absent(String)
        /// The sensor failed or went away.
        case failed(SensorError)
        /// Buffered capture is not possible; poll instead.
        case fallBack
    }

    /// How a still mode ended.
    enum StillEnd {
        /// The device moved: read it at the full rate, for `motionHold` at least.
        case moved
        /// The capture ends.
        case ended(Outcome)
        /// The sensor cannot watch for motion: read it at the still pace.
        case unavailable
    }

    private let sensor: CapturedSensor
    private let motionEvent: MotionEventStill

    init(source: SensorSource, context: IIOContext, device: OpaquePointer, accelerometer: SensorDescription,
         gyroscope: SensorDescription?, gyroscopeDevice: OpaquePointer?, base: BaseSensor?, hinge: HingeSensor?) {
        let settings = SensorSettings(journal: SettingsJournal.directory.map { SettingsJournal(directory: $0) })
        sensor = CapturedSensor(source: source, context: context, device: device, accelerometer: accelerometer,
                            gyroscope: gyroscope, gyroscopeDevice: gyroscopeDevice, base: base, hinge: hinge,
                            settings: settings)
        motionEvent = MotionEventStill(sensor: sensor)
    }

    /// Captures until the capture ends, in the mode the sensor's `CapturePlan` chose; every setting is put back
    /// before it returns.
    func run() -> Outcome {
        defer {
            // Disarmed first: a driver that refuses threshold writes while its event is enabled would refuse
            // putting the threshold back.
            motionEvent.disarm()
            sensor.settings.restore()
        }
        let accel = sensor.accel
        // Nothing is written to a device whose buffer another program runs (`SensorSettings`).
        sensor.setFrequencies(accel.frequency?.chosen ?? sensor.rate)
        if accel.plan.mode == .buffered {
            let outcome = BufferedCapture(sensor: sensor, motionEvent: motionEvent).run()
            if case .fallBack = outcome {} else { return outcome }
        }
        return PolledCapture(sensor: sensor, motionEvent: motionEvent).run()
    }
}
