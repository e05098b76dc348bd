import Glibc
import CIIO
import RotationProtocol

/// The still mode of a HID sensor hub that honours `in_accel_hysteresis`: the hysteresis set so that the hub
/// reports only a change larger than it, the buffer enabled at the full rate one scan per wake-up, and the
/// capture asleep on it; the first report is the start of a turn. Nothing wakes the capture while the device is
/// still but a safety read once every `safetyInterval`.
///
/// The hysteresis is in the units of the hub's readings (`hid_sensor_read_raw_hyst_value` converts the HID
/// sensitivity with its unit exponent): g when `in_accel_scale` is 9.80665 times a power of ten, m/s² when it
/// is a power of ten; a part whose scale says neither is not watched this way. A hub that ignores the setting
/// keeps reporting a still device: two reports in a row that differ by less than the hysteresis show it, and
/// the part is read at the still pace from then on, as before (logged once; `PartFindings` remembers it). The
/// hysteresis is put back when the watch ends, before the full rate's buffer runs. Owned by the sensor thread.
struct HysteresisWatch {
    let part: CapturedPart

    /// The attribute.
    static let file = "in_accel_hysteresis"

    /// The hysteresis asked for, as a share of 1 g: half the sampling policy's widest still band
    /// (`CapturedPart.movedDeparture`), about 3° of a turn; a hand's tremor (about 0.005 g) stays far below it.
    static let share = 0.05

    /// Seconds between safety reads: twice an armed event's `motionSafetyInterval`. A hub's raw read asks the hub
    /// and sleeps until it answers, two wake-ups per read (0.1 a second at this interval), and the hub compares
    /// readings itself, so there is no latched interrupt whose edge could be missed; the read is there for a hub
    /// that stops reporting altogether.
    static let safetyInterval = 20.0

    /// Reports in a row within the hysteresis of the one before that show a hub ignoring it (the first report
    /// after the buffer is enabled may be one).
    static let ignoredAfter = 2

    /// The hysteresis asked for, in the hub's units, as the attribute takes it; nil when the part offers none or
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
    /// the part offers no hysteresis, its unit is unknown, the hub ignores it, or a write is refused.
    func watchWhileStill() -> SensorCapture.StillEnd {
        let accel = part.accel, source = part.source
        guard let band = accel.hysteresis, !source.findings.ignoresHysteresis(part.part),
              !PartSettings.bufferRuns(accel.id) else { return .unavailable }
        let settings = part.settings
        settings.remember(part.dev, accel.id, HysteresisWatch.file)
        guard let original = settings.original(accel.id, HysteresisWatch.file),
              settings.write(part.dev, accel.id, HysteresisWatch.file, band,
                             purpose: "reading it at the still pace while still") else { return .unavailable }
        defer {
            settings.write(part.dev, accel.id, HysteresisWatch.file, original, purpose: "its hysteresis stays at \(band)")
        }
        // The part is at the full rate's frequency: the still spell starts from the full pace.
        SensorLog.write(.debug, "\(accel.id): the device is still: the hub reports only a change over \(band) (\(HysteresisWatch.file)), reading it every \(FrequencyPlan.text(HysteresisWatch.safetyInterval)) s in case its reports stop")
        // The buffer is released when `listen` returns, before the hysteresis is put back: nothing is written to
        // the device while its buffer runs.
        return listen()
    }

    /// Enables the accelerometer's buffer, one scan per wake-up, and watches it until the still spell ends.
    private func listen() -> SensorCapture.StillEnd {
        let accel = part.accel
        part.rememberBuffer(part.dev, accel.id, part.accelChannels, timestamp: accel.hasTimestamp)
        guard let stream = try? BufferStream(device: part.dev, files: part.accelFiles, channels: part.accelChannels,
                                             timestamp: accel.hasTimestamp ? IIOContext.inputChannel(part.dev, "timestamp") : nil,
                                             batch: 1) else { return .unavailable }
        return watch(stream, band: HysteresisWatch.share * 9.80665)
    }

    /// Sleeps on `stream` until a report shows the device moved, the hub is found to ignore the hysteresis, a
    /// safety read finds the device moved, the system wakes, or the capture stops. `band`: the hysteresis in m/s².
    private func watch(_ stream: BufferStream, band: Double) -> SensorCapture.StillEnd {
        let accel = part.accel, source = part.source
        var previous = part.lastAcceleration
        var within = 0
        var deadline = MonotonicClock.now() + HysteresisWatch.safetyInterval
        // A base or hinge sensor is read every foldReadInterval meanwhile (CapturedPart.foldRead).
        let foldPace = part.readsFoldWhileStill ? CapturedPart.foldReadInterval : Double.infinity
        var foldDue = MonotonicClock.now() + foldPace
        while true {
            var fds = [pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.resumeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.switchDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 4, Int32(max(0, (min(deadline, foldDue) - MonotonicClock.now()) * 1000).rounded(.up)))
            if source.stopRequested { return .ended(.stopped) }
            if source.woke(accel.id, resumeReadable: fds[2].revents != 0) { return .moved }
            if fds[3].revents != 0, let error = part.readSwitch(takeOne: part.takePolled) { return .ended(.failed(error)) }
            if fds[0].revents != 0 {
                let woke = MonotonicClock.now()
                let bytes = stream.refill()
                if bytes < 0 {
                    if !IIOContext.isPresent(accel.id) { return .ended(.failed(.gone(device: accel.id))) }
                    return .unavailable
                }
                var report: (Sample, DeliveryTiming)?
                part.decodeAccel(stream, bytes: bytes, hz: part.rate, woke: woke, read: MonotonicClock.now()) { report = ($0, $1) }
                guard let (sample, timing) = report else { continue }
                if part.departs(sample) {
                    part.deliver(sample, timing: timing)
                    SensorLog.write(.debug, "\(accel.id): the hub reported a change: reading it at \(FrequencyPlan.text(part.rate)) Hz")
                    return source.stopRequested ? .ended(.stopped) : .moved
                }
                // A hub that honours the hysteresis reports a reading more than it away from the last on some axis.
                let step = previous.map { sample.acceleration - $0 }
                let unchanged = step.map { max(abs($0.x), abs($0.y), abs($0.z)) < band } ?? false
                within = unchanged ? within + 1 : 0
                previous = sample.acceleration
                if within >= HysteresisWatch.ignoredAfter {
                    source.findings.noteIgnoresHysteresis(part.part)
                    SensorLog.once(.info, "\(accel.id) (\(accel.name)): the hub keeps reporting the still device though \(part.accelFiles.path(HysteresisWatch.file)) asks it to report only a larger change: it ignores the hysteresis; reading it at the still pace while still")
                    return .unavailable
                }
                continue
            }
            if MonotonicClock.now() >= foldDue, MonotonicClock.now() < deadline {
                foldDue = MonotonicClock.now() + foldPace
                switch part.foldRead(takeOne: part.takePolled) {
                case .failed(let error): return .ended(.failed(error))
                case .moved: return .moved
                case .unmoved: continue
                }
            }
            guard MonotonicClock.now() >= deadline else { continue }
            deadline = MonotonicClock.now() + HysteresisWatch.safetyInterval
            if let end = safetyRead() { return end }
        }
    }

    /// A read of the raw attributes once every safety interval: nil while it finds the device where it was. One
    /// that finds it moved with no report shows reports that do not come: delivered, and the part is read at the
    /// still pace while still from then on (logged once).
    private func safetyRead() -> SensorCapture.StillEnd? {
        switch part.safetyRead(takeOne: part.takePolled) {
        case .failed(let error): return .ended(.failed(error))
        case .unmoved: return nil
        case .moved:
            part.source.findings.noteIgnoresHysteresis(part.part)
            SensorLog.once(.warning, "\(part.accel.id) (\(part.accel.name)): the device moved and the hub did not report it while \(part.accelFiles.path(HysteresisWatch.file)) was set: reading it at the still pace while still from now on")
            return .moved
        }
    }
}
