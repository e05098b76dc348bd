import Glibc
import RotationProtocol
import RotationSystem

/// The still mode of a HID sensor hub that honours `in_accel_hysteresis`: the hysteresis set so that the hub
/// reports only a change larger than it, the buffer enabled at the full rate one scan per wake-up, and the
/// capture asleep on it; the first report is the start of a turn. Nothing wakes the capture while the device is
/// still but a safety read once every `safetyInterval`.
///
/// The hysteresis is in the units of the hub's readings (`hid_sensor_read_raw_hyst_value` converts the HID
/// sensitivity with its unit exponent): g when `in_accel_scale` is 9.80665 times a power of ten, m/s² when it
/// is a power of ten; a sensor whose scale says neither is not watched this way. A hub that ignores the setting
/// keeps reporting a still device at its sampling frequency: `ignoredAfter` reports in a row that differ by less
/// than the hysteresis show it, and the sensor is read at the still pace from then on, as before (logged once;
/// `SensorFindings` remembers it). Not every scan is such a report: the hub answers a raw read of the sensor (a
/// switch's change, a fold's or a safety read) with an input report that the driver pushes into the buffer too,
/// and scans waiting when the buffer is enabled were taken before the hysteresis was in force (`Reports`). The
/// hysteresis is put back when the still mode ends, before the full rate's buffer runs. Owned by the sensor thread.
struct HysteresisStill: StillMode {
    let sensor: CapturedSensor

    /// The attribute.
    static let file = "in_accel_hysteresis"

    /// The hysteresis asked for, as a share of 1 g: half the sampling policy's widest still band
    /// (`CapturedSensor.movedDeparture`), about 3° of a turn; a hand's tremor (about 0.005 g) stays far below it.
    static let share = 0.05

    /// Seconds between safety reads: twice an armed event's `motionSafetyInterval`. A hub's raw read asks the hub
    /// and sleeps until it answers, two wake-ups per read (0.1 a second at this interval), and the hub compares
    /// readings itself, so there is no latched interrupt whose edge could be missed; the read is there for a hub
    /// that stops reporting altogether.
    static let safetyInterval = 20.0

    /// Reports in a row within the hysteresis of the one before, each at most `ignoredGap` after the one before,
    /// that show a hub ignoring it (the first report after the buffer is enabled may be one: a hub may report the
    /// reading it powers up with).
    static let ignoredAfter = 3

    /// Seconds between two of those reports at most: a hub that ignores the hysteresis reports at its sampling
    /// frequency, the full rate's.
    static let ignoredGap = 1.0

    /// Seconds after a raw read of the sensor in which a report may be the hub's answer to it
    /// (`hid-sensor-hub.c`'s `sensor_hub_raw_event` hands every input report to the driver, which pushes it into
    /// the buffer while it is enabled): it says nothing of what the hub reports by itself.
    static let answerTime = 0.5

    /// The reports of one still spell, as far as they tell whether the hub honours the hysteresis.
    struct Reports {
        /// The reading of the last scan, or where the device was when the still mode began.
        var previous: Vector3?
        /// Reports in a row within the hysteresis of the one before, and when the last of them came.
        private var unchanged = 0
        private var lastUnchanged = -Double.infinity
        /// Until then a scan may be the answer to a raw read (`answerTime`).
        private var answersUntil = -Double.infinity

        /// Starts from `previous`, where the device was last found.
        init(from previous: Vector3?) {
            self.previous = previous
        }

        /// Notes a raw read of the sensor at `now`: the scans of the next `answerTime` may answer it.
        mutating func asked(at now: Double) {
            answersUntil = now + HysteresisStill.answerTime
        }

        /// Takes one scan reading `a` that came at `now` and does not depart from the last pose; whether the
        /// reports so far show the hub ignoring a hysteresis of `band` (m/s², on every axis).
        mutating func ignored(_ a: Vector3, at now: Double, band: Double) -> Bool {
            defer { previous = a }
            guard now >= answersUntil else { return false }
            // A hub that honours the hysteresis reports a reading more than it away from the last on some axis.
            let step = previous.map { a - $0 }
            guard let step, max(abs(step.x), abs(step.y), abs(step.z)) < band else {
                unchanged = 0
                return false
            }
            unchanged = now - lastUnchanged <= HysteresisStill.ignoredGap ? unchanged + 1 : 1
            lastUnchanged = now
            return unchanged >= HysteresisStill.ignoredAfter
        }
    }

    /// The hysteresis asked for, in the hub's units, as the attribute takes it; nil when the sensor offers none or
    /// its unit is unknown. Found at discovery (`SensorDescription.hysteresis`) from the directory's listing and
    /// the scale, without reading the attribute: a HID attribute read asks the hub.
    static func band(files: DeviceFiles, scale: Double) -> String? {
        guard files.has(file), scale > 0 else { return nil }
        func powerOfTen(_ v: Double) -> Bool {
            let e = log10(v)
            return abs(e - e.rounded()) < 1e-6
        }
        let g: Double
        if powerOfTen(scale / 9.80665) { g = 1 } else if powerOfTen(scale) { g = 9.80665 } else { return nil }
        let micro = Int((share * g * 1e6).rounded())
        return "\(micro / 1_000_000).\(String(micro % 1_000_000 + 1_000_000).dropFirst())"
    }

    /// While the sampling policy says still: sets the hysteresis and sleeps on the buffer; `.unavailable` when
    /// the sensor offers no hysteresis, its unit is unknown, the hub ignores it, or a write is refused.
    func runWhileStill(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd {
        let accel = sensor.accel, source = sensor.source
        guard let band = accel.hysteresis, !source.findings.ignoresHysteresis(sensor.findingsKey),
              !SensorSettings.bufferRuns(accel.id) else { return .unavailable }
        let settings = sensor.settings
        settings.remember(sensor.dev, accel.id, HysteresisStill.file)
        guard let original = settings.original(accel.id, HysteresisStill.file),
              settings.write(sensor.dev, accel.id, HysteresisStill.file, band,
                             purpose: "reading it at the still pace while still") else { return .unavailable }
        defer {
            settings.write(sensor.dev, accel.id, HysteresisStill.file, original, purpose: "its hysteresis stays at \(band)")
        }
        // The sensor is at the full rate's frequency: the still spell starts from the full pace.
        Log.debug("\(accel.id): the device is still: the hub reports only a change over \(band) (\(HysteresisStill.file)), reading it every \(FrequencyPlan.text(HysteresisStill.safetyInterval)) s in case its reports stop")
        // The buffer is released when `listen` returns, before the hysteresis is put back: nothing is written to
        // the device while its buffer runs.
        return listen(takeOne: takeOne)
    }

    /// Enables the accelerometer's buffer, one scan per wake-up, and watches it until the still spell ends.
    private func listen(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd {
        let accel = sensor.accel
        sensor.rememberBuffer(sensor.dev, accel.id, sensor.accelChannels, timestamp: accel.hasTimestamp)
        guard let stream = try? BufferStream(device: sensor.dev, files: sensor.accelFiles, channels: sensor.accelChannels,
                                             timestamp: accel.hasTimestamp ? IIOContext.inputChannel(sensor.dev, "timestamp") : nil,
                                             batch: 1) else { return .unavailable }
        return follow(stream, band: HysteresisStill.share * 9.80665, takeOne: takeOne)
    }

    /// Sleeps on `stream` until a report shows the device moved, the hub is found to ignore the hysteresis, a
    /// safety read finds the device moved, the system wakes, or the capture stops. `band`: the hysteresis in m/s².
    private func follow(_ stream: BufferStream, band: Double, takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd {
        let accel = sensor.accel, source = sensor.source
        if let end = dropWaiting(stream) { return end }
        var reports = Reports(from: sensor.lastAcceleration)
        var deadline = MonotonicClock.now() + HysteresisStill.safetyInterval
        // A base or hinge sensor is read every foldReadInterval meanwhile (CapturedSensor.foldRead).
        let foldPace = sensor.readsFoldWhileStill ? CapturedSensor.foldReadInterval : Double.infinity
        var foldDue = MonotonicClock.now() + foldPace
        while true {
            var fds = [pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.resumeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.switchDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 4, Int32(max(0, (min(deadline, foldDue) - MonotonicClock.now()) * 1000).rounded(.up)))
            if source.stopRequested { return .ended(.stopped) }
            if source.woke(accel.id, resumeReadable: fds[2].revents != 0) { return .moved }
            if fds[3].revents != 0 {
                if let error = sensor.readSwitch(takeOne: takeOne) { return .ended(.failed(error)) }
                reports.asked(at: MonotonicClock.now())
            }
            if fds[0].revents != 0 {
                if let end = take(stream, &reports, band: band) { return end }
                continue
            }
            if MonotonicClock.now() >= foldDue, MonotonicClock.now() < deadline {
                foldDue = MonotonicClock.now() + foldPace
                switch sensor.foldRead(takeOne: takeOne) {
                case .failed(let error): return .ended(.failed(error))
                case .moved: return .moved
                // A sample may have been taken (and skipped), and the hub may answer the base's or the hinge's
                // raw reads too.
                case .unmoved: reports.asked(at: MonotonicClock.now())
                }
                continue
            }
            guard MonotonicClock.now() >= deadline else { continue }
            deadline = MonotonicClock.now() + HysteresisStill.safetyInterval
            if let end = safetyRead(takeOne: takeOne) { return end }
            reports.asked(at: MonotonicClock.now())
        }
    }

    /// Reads and drops the scans waiting when the buffer was enabled: taken before the hysteresis was in force,
    /// they are no reports of the still device. Nil, or how the still mode ends when the buffer fails.
    private func dropWaiting(_ stream: BufferStream) -> SensorCapture.StillEnd? {
        var ready = pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 0) > 0, ready.revents & Int16(POLLIN) != 0 {
            guard stream.refill() > 0 else { return IIOContext.isPresent(sensor.accel.id) ? .unavailable : .ended(.failed(.gone(device: sensor.accel.id))) }
        }
        return nil
    }

    /// Reads one scan from `stream`: delivered when it departs from the last pose (the still mode ends), else taken
    /// into `reports`; nil while the still mode goes on.
    private func take(_ stream: BufferStream, _ reports: inout Reports, band: Double) -> SensorCapture.StillEnd? {
        let accel = sensor.accel, source = sensor.source
        let woke = MonotonicClock.now()
        let bytes = stream.refill()
        if bytes < 0 {
            if !IIOContext.isPresent(accel.id) { return .ended(.failed(.gone(device: accel.id))) }
            return .unavailable
        }
        var report: (Sample, DeliveryTiming)?
        sensor.decodeAccel(stream, bytes: bytes, hz: sensor.rate, woke: woke, read: MonotonicClock.now()) { report = ($0, $1) }
        guard let (sample, timing) = report else { return nil }
        if sensor.departs(sample) {
            sensor.deliver(sample, timing: timing)
            Log.debug("\(accel.id): the hub reported a change: reading it at \(FrequencyPlan.text(sensor.rate)) Hz")
            return source.stopRequested ? .ended(.stopped) : .moved
        }
        guard reports.ignored(sample.acceleration, at: woke, band: band) else { return nil }
        source.findings.noteIgnoresHysteresis(sensor.findingsKey)
        Log.once(.info, "\(accel.id) (\(accel.name)): the hub keeps reporting the still device though \(sensor.accelFiles.path(HysteresisStill.file)) asks it to report only a larger change: it ignores the hysteresis; reading it at the still pace while still")
        return .unavailable
    }

    /// A read of the raw attributes once every safety interval: nil while it finds the device where it was. One
    /// that finds it moved with no report shows reports that do not come: delivered, and the sensor is read at the
    /// still pace while still from then on (logged once).
    private func safetyRead(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd? {
        switch sensor.safetyRead(takeOne: takeOne) {
        case .failed(let error): return .ended(.failed(error))
        case .unmoved: return nil
        case .moved:
            sensor.source.findings.noteIgnoresHysteresis(sensor.findingsKey)
            Log.once(.warning, "\(sensor.accel.id) (\(sensor.accel.name)): the device moved and the hub did not report it while \(sensor.accelFiles.path(HysteresisStill.file)) was set: reading it at the still pace while still from now on")
            return .moved
        }
    }
}
