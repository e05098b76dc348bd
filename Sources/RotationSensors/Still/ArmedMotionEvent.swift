import Glibc
import CIIO
import RotationSystem

/// An accelerometer watching for motion itself while the device is still: its motion event armed with a
/// threshold (`MotionEventDriver`), its event descriptor open, and nothing read until the event fires.
///
/// Every write goes through the capture's `SensorSettings`, which puts each file back when the capture ends;
/// `disarm()` must come first (a driver that refuses threshold writes while enabled would refuse the put-back).
/// Owned by the sensor thread.
final class ArmedMotionEvent {
    /// How a wait ended.
    enum Wake {
        /// The sensor reported motion.
        case motion
        /// The safety interval passed without an event.
        case timeout
        /// `stop()` was called.
        case stopped
        /// The event descriptor failed.
        case failed(SensorError)
        /// The resume descriptor became readable: the system may have slept.
        case resumed
        /// A tablet-mode or lid switch changed (`SensorSource.switchDescriptor`).
        case switched
        /// The base's event descriptor became readable (`BaseMotion`).
        case base
    }

    /// The driver's entry.
    let driver: MotionEventDriver
    /// The event descriptor.
    let stream: MotionEventStream
    private let dev: OpaquePointer
    private let id: String
    private let settings: SensorSettings
    /// Whether the enables are written 1.
    private(set) var armed = false

    /// The motion event of `dev` (`id`), written through `driver`'s files and read through `stream`; not armed yet.
    init(driver: MotionEventDriver, stream: MotionEventStream, device dev: OpaquePointer, id: String, settings: SensorSettings) {
        self.driver = driver
        self.stream = stream
        self.dev = dev
        self.id = id
        self.settings = settings
    }

    /// The files as `SensorSettings` knows them: under `events/`.
    private func path(_ file: String) -> String { "events/" + file }

    private func write(_ files: [String], _ text: String) -> Bool {
        files.allSatisfy {
            settings.write(dev, id, path($0), text,
                           purpose: "not watching for motion with the \(driver.driver) event; sampling it at the still pace instead")
        }
    }

    /// Arms the event with `threshold` (the driver's text), in the order the driver's quirks ask for, and drops
    /// any event left from before; false when the driver refused a write (logged once by `SensorSettings`).
    func arm(threshold: String) -> Bool {
        // Thresholds and periods are recorded before the enables, so they go back first, while disarmed.
        for file in driver.files { settings.remember(dev, id, path(file)) }
        let quirks = driver.quirks
        if quirks.contains(.bufferDisablePowersOff) || quirks.contains(.valueRefusedWhileEnabled) {
            guard write(driver.enable, "0") else { return false }
        }
        let values = { self.write(self.driver.value, threshold) && (self.driver.period.map { self.write($0.files, $0.text) } ?? true) }
        if !quirks.contains(.enableResetsValue) { guard values() else { return false } }
        guard write(driver.enable, "1") else { return false }
        armed = true
        if quirks.contains(.enableResetsValue) { guard values() else { return false } }
        _ = try? stream.drain()
        return true
    }

    /// Writes 0 to every enable, if armed.
    func disarm() {
        guard armed else { return }
        armed = false
        _ = write(driver.enable, "0")
    }

    /// Waits for a motion event, at most `seconds`, or until `wake` (the source's stop descriptor), `resume`
    /// (`ResumeDetector`'s), `switches` (`SensorSource.switchDescriptor`) or `base` (`BaseMotion.descriptor`, −1 for
    /// none) is readable. Events of another kind (another channel or event type) are read and ignored.
    func wait(seconds: Double, wake: Int32, resume: Int32, switches: Int32, base: Int32 = -1) -> Wake {
        let deadline = MonotonicClock.now() + seconds
        while true {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return .timeout }
            var fds = [pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: resume, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: switches, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: base, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 5, Int32((left * 1000).rounded(.up)))
            if fds[1].revents != 0 { return .stopped }
            if fds[2].revents != 0 { return .resumed }
            if fds[3].revents != 0 { return .switched }
            if fds[4].revents != 0 { return .base }
            guard fds[0].revents != 0 else { continue }
            do {
                let events = try stream.drain()
                if events.contains(where: { $0.channelType == IIO_ACCEL.rawValue && $0.type == driver.eventType }) {
                    return .motion
                }
                if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                    return .failed(.events(device: id, operation: "read", errno: .noDevice))
                }
            } catch {
                return .failed(error)
            }
        }
    }
}

extension MotionEventDriver {
    /// The threshold text for `perSecond` m/s² per second sampled at `hz` on the sensor whose files are `files` and
    /// whose `in_accel_scale` is `scale`: its resolution from the x scan element's type, and the step the unit's
    /// file gives, read from there (`threshold(perSecond:hz:scale:bits:step:)`).
    func threshold(perSecond: Double, hz: Double, scale: Double, files: DeviceFiles) -> String? {
        let bits = files.read("scan_elements/in_accel_x_type").flatMap { ScanFormat(parsing: $0) }?.bits
        var step: Double?
        if case .counts(let file?, _) = unit { step = files.read("events/" + file).flatMap { Double($0) } }
        return threshold(perSecond: perSecond, hz: hz, scale: scale, bits: bits, step: step)
    }

    /// The threshold text for a change of `perSecond` m/s² per second sampled at `hz`: the change between two
    /// samples, in the driver's unit, at least one step, within the driver's range. `scale` is the
    /// accelerometer's `in_accel_scale` (m/s² per count), `bits` its resolution (the scan element's bits), and
    /// `step` the value of `events/<file>` when the unit names one. Nil when the unit needs `bits` and it is not
    /// known.
    func threshold(perSecond: Double, hz: Double, scale: Double, bits: Int?, step fileStep: Double?) -> String? {
        let change = perSecond / hz
        let value: Double
        switch unit {
        case .fullScale(let divisor):
            guard let bits, bits > 1, scale > 0 else { return nil }
            value = change / (scale * Double(1 << (bits - 1)) / divisor)
        case .counts(_, let step):
            value = change / (fileStep.flatMap { $0 > 0 ? $0 : nil } ?? step)
        case .perSecond:
            value = perSecond
        case .g:
            value = change / 9.80665
        }
        let clamped = min(max(integer ? value.rounded() : value, range.lowerBound), range.upperBound)
        if integer { return String(Int(clamped)) }
        let micro = Int((clamped * 1_000_000).rounded())
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
