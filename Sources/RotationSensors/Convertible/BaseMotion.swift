import CIIO
import RotationSystem

/// A convertible's base watching for motion itself while the display sleeps on its own motion event, so that
/// neither sensor is read until one of them moves.
///
/// Only a base that can raise its event: one whose driver registered its trigger (drivers register one only when
/// the sensor's interrupt line is wired up, and raise the event on that line: bmc150's second client on a DUAL250E
/// convertible has one, a BOSC0200's has none), whose driver is in `MotionEventDriver`'s table, and that no other
/// program's buffer runs on. Every other base is read every `CapturedSensor.foldReadInterval` instead. The event
/// descriptor holds the base's node, so it is opened for one still spell and closed when the spell ends. Every
/// write goes through the capture's `SensorSettings`. Owned by the sensor thread.
final class BaseMotion {
    private let armed: ArmedMotionEvent
    private let id: String
    private let dev: OpaquePointer
    private let settings: SensorSettings
    /// The sampling frequency's files, set to the event's rate while armed.
    private let frequencyFiles: [String]

    /// The event's descriptor: readable when the base reported something.
    var descriptor: Int32 { armed.stream.fd }

    /// Arms the base's motion event at `motionSampleRate` with `motionRate`'s threshold, as the display's is; nil
    /// (why logged once) when the base cannot be watched so.
    init?(sensor: CapturedSensor) {
        guard let base = sensor.base?.sensor, sensor.hinge == nil, base.capture == .buffered,
              let dev = sensor.ctx.device(id: base.id) else { return nil }
        let files = DeviceFiles(id: base.id)
        guard let driver = MotionEventDriver.matching(files), !SensorSettings.bufferRuns(base.id) else { return nil }
        let c = sensor.source.configuration
        guard let plan = base.frequency else {
            Log.once(.info, "\(base.id) (\(base.name)): its sampling frequency is not known, and its \(driver.driver) motion threshold counts a change between two samples; reading the base every \(FrequencyPlan.text(CapturedSensor.foldReadInterval)) s while the display is still")
            return nil
        }
        let hz = plan.value(atLeast: c.motionSampleRate)
        guard let threshold = driver.threshold(perSecond: c.motionRate, hz: hz, scale: base.calibration.scale.x,
                                               files: files) else { return nil }
        let stream: MotionEventStream
        do {
            stream = try MotionEventStream(device: base.id)
        } catch {
            Log.once(error.isPermission ? .error : .warning, "\(error); reading the base \(base.id) every \(FrequencyPlan.text(CapturedSensor.foldReadInterval)) s while the display is still instead of watching it for motion")
            return nil
        }
        let armed = ArmedMotionEvent(driver: driver, stream: stream, device: dev, id: base.id, settings: sensor.settings)
        let text = FrequencyPlan.text(hz)
        guard ([plan.attribute] + plan.linked).allSatisfy({
            sensor.settings.write(dev, base.id, $0, text, purpose: "reading the base every \(FrequencyPlan.text(CapturedSensor.foldReadInterval)) s while the display is still instead of watching it for motion")
        }), armed.arm(threshold: threshold) else {
            armed.disarm()
            return nil
        }
        self.armed = armed
        self.dev = dev
        settings = sensor.settings
        frequencyFiles = [plan.attribute] + plan.linked
        id = base.id
        Log.debug("\(base.id): the base is still too: watching for motion with its \(driver.driver) event (threshold \(threshold) at \(text) Hz)")
    }

    /// Writes 0 to the event's enables and puts the sampling frequency back (the base's raw readings are fresher at
    /// its own rate); the descriptor closes with this object.
    func disarm() {
        armed.disarm()
        for file in frequencyFiles {
            if let value = settings.original(id, file) {
                settings.write(dev, id, file, value, purpose: "keeping the base's sampling frequency at the motion event's")
            }
        }
    }

    /// Whether the events pending include the base's report of motion (others are read and dropped); throws when
    /// the descriptor failed.
    func reportedMotion() throws(SensorError) -> Bool {
        try armed.stream.drain().contains { $0.channelType == IIO_ACCEL.rawValue && $0.type == armed.driver.eventType }
    }
}
