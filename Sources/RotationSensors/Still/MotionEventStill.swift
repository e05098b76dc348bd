import RotationSystem

/// The still mode of a sensor whose driver offers a motion event: the event armed, the capture asleep on its
/// descriptor, and the sensor read once every safety interval in case an event was lost.
///
/// Set up the first time the device is still (`ArmedMotionEvent` holds the descriptor for the rest of the capture);
/// a sensor whose driver offers no event, whose events were found not to arrive, or whose events cannot work
/// (each logged once) has none, and is read at the still pace instead. Owned by the sensor thread.
final class MotionEventStill: StillMode {
    private let sensor: CapturedSensor
    /// The motion event, once set up; nil when the sensor has none that can work.
    private var armed: ArmedMotionEvent?
    private var checked = false
    /// Whether the base moved once without its motion event saying so: it is read every `foldReadInterval`
    /// while still from then on.
    private var baseEventLost = false

    /// How many motion events in a row may be lost (a safety read finding the device moved with no event) before
    /// the sensor's events are given up: each loss re-arms the event (an enable written 0 then 1 brings back a
    /// configuration the sensor lost), repeated ones show events that cannot be relied on.
    static let lossesTolerated = 3

    init(sensor: CapturedSensor) {
        self.sensor = sensor
    }

    /// Writes 0 to the event's enables, if armed: first, when the capture ends, as a driver that refuses
    /// threshold writes while its event is enabled would refuse putting the threshold back.
    func disarm() {
        armed?.disarm()
        armed = nil
    }

    /// The motion event, set up the first time the device is still: nil when the driver offers none
    /// (`MotionEventDriver.matching`), when its events were found not to arrive, or when they cannot work (each
    /// logged once).
    private func armedEvent() -> ArmedMotionEvent? {
        if checked { return armed }
        checked = true
        let accel = sensor.accel, files = sensor.accelFiles
        guard let driver = MotionEventDriver.matching(files), sensor.source.findings.motionEventsWork(sensor.findingsKey) != false else { return nil }
        // The drivers in the table register their trigger (st_lsm6dsx its buffer) only with an interrupt line,
        // and raise their motion event on the same line: without one, the enable is taken and nothing fires.
        guard accel.capture == .buffered else {
            Log.once(.info, "\(accel.id) (\(accel.name)): not watching for motion with its \(driver.driver) event (\(files.path("events/" + driver.enable[0]))): the driver registered no trigger or buffer for it, which it does only when the sensor's interrupt line is wired up, and the event needs that line too; reading it at the still pace while still")
            return nil
        }
        // A buffer whose trigger never fired: the driver has an interrupt, but the board does not wire the pin
        // the driver routes it to (bmc150 on boards that wire INT2), and the event is raised on that pin too.
        guard !sensor.interruptUnheard else {
            Log.once(.info, "\(accel.id) (\(accel.name)): not watching for motion with its \(driver.driver) event (\(files.path("events/" + driver.enable[0]))): its buffer's trigger never fired, so its interrupt does not reach the host, and the event would come the same way; reading it at the still pace while still")
            return nil
        }
        do {
            let stream = try MotionEventStream(device: accel.id)
            armed = ArmedMotionEvent(driver: driver, stream: stream, device: sensor.dev, id: accel.id, settings: sensor.settings)
        } catch {
            Log.once(error.isPermission ? .error : .warning, "\(error); reading \(accel.id) at the still pace while still instead of watching for motion with its \(driver.driver) event")
        }
        return armed
    }

    /// Arms the event at `motionSampleRate`; false (the event dropped, logged once) when it cannot be.
    private func arm(_ armed: ArmedMotionEvent) -> Bool {
        let c = sensor.source.configuration, accel = sensor.accel, files = sensor.accelFiles
        let full = accel.frequency?.chosen ?? sensor.rate
        let hz = min(full, accel.frequency?.value(atLeast: c.motionSampleRate) ?? full)
        guard let threshold = armed.driver.threshold(perSecond: c.motionRate, hz: hz, scale: accel.calibration.scale.x,
                                                     files: files) else {
            Log.once(.warning, "\(accel.id) (\(accel.name)): the resolution of its readings is unknown (\(files.path("scan_elements/in_accel_x_type")) does not say), and its \(armed.driver.driver) motion threshold counts a share of the full scale; reading it at the still pace while still")
            disarm()
            return false
        }
        sensor.setFrequencies(hz)
        guard armed.arm(threshold: threshold) else {
            disarm()
            sensor.resumeFrequencies()
            return false
        }
        Log.debug("\(accel.id): the device is still: watching for motion with its \(armed.driver.driver) event (threshold \(threshold) at \(FrequencyPlan.text(hz)) Hz), reading it every \(FrequencyPlan.text(c.motionSafetyInterval)) s in case an event is lost")
        return true
    }

    /// While the sampling policy says still: arms the sensor's motion event and sleeps on it, reading the sensor once
    /// every `motionSafetyInterval` with `takeOne` in case an event was lost (`safetyRead`). A base that can raise
    /// its own motion event is armed too (`BaseMotion`) and read when it reports one and at the safety reads;
    /// another base, or a hinge sensor, is read every `CapturedSensor.foldReadInterval` (`CapturedSensor.foldRead`).
    func runWhileStill(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd {
        // Arming writes the device's event files: never while another program's buffer runs on it.
        if SensorSettings.bufferRuns(sensor.accel.id) { return .unavailable }
        guard let armed = armedEvent(), arm(armed) else { return .unavailable }
        defer { armed.disarm() }
        let accel = sensor.accel, source = sensor.source
        // A base without an event that reaches the host, and a hinge sensor, are read every foldReadInterval
        // meanwhile; the display itself only at its safety reads.
        var base = baseEventLost ? nil : BaseMotion(sensor: sensor)
        defer { base?.disarm() }
        var safetyDue = MonotonicClock.now() + source.configuration.motionSafetyInterval
        while true {
            let now = MonotonicClock.now()
            let foldPace = base == nil && sensor.readsFoldWhileStill ? CapturedSensor.foldReadInterval : Double.infinity
            let foldDue = safetyDue - now > foldPace
            switch armed.wait(seconds: min(safetyDue - now, foldPace), wake: source.wakeDescriptor,
                              resume: source.resumeDescriptor, switches: source.switchDescriptor,
                              base: base?.descriptor ?? -1) {
            case .stopped:
                return .ended(.stopped)
            case .resumed:
                // The sensor may have lost its configuration while the system slept, and a turn made meanwhile
                // raised no event: it is read at once, and armed again (0, then 1) at the next still spell.
                if source.woke(accel.id, resumeReadable: true) { return .moved }
            case .motion:
                source.findings.setMotionEventsWork(sensor.findingsKey, true)
                Log.debug("\(accel.id): the sensor reported motion: reading it at \(FrequencyPlan.text(sensor.rate)) Hz")
                return .moved
            case .failed(let error):
                if !IIOContext.isPresent(accel.id) { return .ended(.failed(.gone(device: accel.id))) }
                Log.once(.warning, "\(error); reading \(accel.id) at the still pace while still instead of watching for motion")
                disarm()
                sensor.resumeFrequencies()
                return .unavailable
            case .switched:
                if let error = sensor.readSwitch(takeOne: takeOne) { return .ended(.failed(error)) }
            case .base:
                if let end = baseReported(&base, takeOne: takeOne) { return end }
            case .timeout where foldDue:
                if let end = MotionEventStill.end(of: sensor.foldRead(takeOne: takeOne)) { return end }
            case .timeout:
                safetyDue = MonotonicClock.now() + source.configuration.motionSafetyInterval
                if let end = safetyRead(armed, takeOne: takeOne) { return end }
                if base != nil, let end = baseSafetyRead(takeOne: takeOne) { return end }
            }
        }
    }

    /// How a fold read ends the still spell: nil while the fold is where it was.
    private static func end(of read: CapturedSensor.SafetyRead) -> SensorCapture.StillEnd? {
        switch read {
        case .failed(let error): return .ended(.failed(error))
        case .moved: return .moved
        case .unmoved: return nil
        }
    }

    /// The base's event descriptor was readable: nil unless the base reported motion and the fold moved (a report
    /// of less than a departure leaves the fold where it was). A base whose event fails is read every
    /// `foldReadInterval` while still from then on (logged once).
    private func baseReported(_ base: inout BaseMotion?, takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd? {
        do {
            guard try base?.reportedMotion() == true else { return nil }
        } catch {
            Log.once(.warning, "\(error); reading the base every \(FrequencyPlan.text(CapturedSensor.foldReadInterval)) s while the display is still instead of watching it for motion")
            base?.disarm()
            base = nil
            baseEventLost = true
            return nil
        }
        return MotionEventStill.end(of: sensor.foldRead(takeOne: takeOne, baseReported: true))
    }

    /// The base's safety read while it watches for motion itself: nil when the fold is where it was. A fold that
    /// moved without the base's event saying so is delivered, and the base is read every `foldReadInterval`
    /// while still from then on (logged once): its interrupt does not reach the host, though its driver registered
    /// a trigger.
    private func baseSafetyRead(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd? {
        switch sensor.foldRead(takeOne: takeOne) {
        case .failed(let error): return .ended(.failed(error))
        case .unmoved: return nil
        case .moved:
            baseEventLost = true
            if let b = sensor.base?.sensor {
                Log.once(.warning, "\(b.id) (\(b.name)): the base moved and its motion event did not report it, so its interrupt line probably does not reach the host; reading the base every \(FrequencyPlan.text(CapturedSensor.foldReadInterval)) s while the display is still from now on")
            }
            return .moved
        }
    }

    /// One safety read (`CapturedSensor.safetyRead`), or a wake of the system found at it: nil when it finds the
    /// device where it was. One that finds it moved (`movedDeparture`) without an event delivered the reading and
    /// ends the still mode like an event; if no event has ever
    /// arrived from the sensor, its events do not work, and it is read at the still pace from then on (logged once).
    private func safetyRead(_ armed: ArmedMotionEvent, takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd? {
        let accel = sensor.accel, source = sensor.source
        if source.woke(accel.id, resumeReadable: false) { return .moved }
        switch sensor.safetyRead(takeOne: takeOne) {
        case .failed(let error): return .ended(.failed(error))
        case .unmoved: return nil
        case .moved: break
        }
        if source.stopRequested { return .ended(.stopped) }
        let lost = source.findings.noteLostEvent(sensor.findingsKey)
        if source.findings.motionEventsWork(sensor.findingsKey) == true && lost < MotionEventStill.lossesTolerated {
            Log.debug("\(accel.id): the device moved and no motion event said so: an event was lost; arming it again")
        } else if source.findings.motionEventsWork(sensor.findingsKey) == true {
            source.findings.setMotionEventsWork(sensor.findingsKey, false)
            Log.once(.warning, "\(accel.id) (\(accel.name)): the device moved \(lost) times in a row and its \(armed.driver.driver) motion event (\(sensor.accelFiles.path("events/" + armed.driver.enable[0]))) did not report it, though armed again each time: its events are lost too often to rely on; reading it at the still pace while still from now on")
            disarm()
        } else {
            source.findings.setMotionEventsWork(sensor.findingsKey, false)
            Log.once(.warning, "\(accel.id) (\(accel.name)): the device moved and its \(armed.driver.driver) motion event (\(sensor.accelFiles.path("events/" + armed.driver.enable[0]))) did not report it: no event has arrived from it since it was armed, so the sensor's interrupt line is probably not wired up; reading it at the still pace while still from now on")
            disarm()
        }
        return .moved
    }
}
