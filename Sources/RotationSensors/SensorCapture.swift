import Glibc
import CIIO
import RotationEngine

/// One capture from an opened accelerometer (and gyroscope) until it stops, fails or the device goes away.
///
/// Runs on the `SensorSource` thread and owns nothing beyond that run: the context belongs to the session.
///
/// Everything written to a device is written while its buffer is disabled, in the order the kernel accepts:
/// the sampling frequency (and a rate the driver requires to match it), the trigger, then libiio's buffer
/// length, watermark, scan elements and enable. All of it is put back when the capture ends (`PartSettings`).
///
/// While the device is still, a part whose driver offers a motion event is not read at all: the capture arms the
/// event (`MotionWatch`) and sleeps on its descriptor, reading the part once every `motionSafetyInterval` in case
/// an event was lost; other parts are read at the still pace. A polled part whose raw reads sleep in the driver
/// (`quickenRawReads`) is read at its highest sampling frequency, and while still one axis at a time
/// (`glanceWhileStill`).
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

    /// A gyroscope whose raw reads take longer than this share of a sample period is not polled: its reads
    /// would hold back the accelerometer's.
    static let slowReadShare = 0.25

    private let source: SensorSource
    private let ctx: IIOContext
    private let dev: OpaquePointer
    private let accel: SensorDescription
    private let accelFiles: DeviceFiles
    private var gyro: SensorDescription?
    private let gyroDev: OpaquePointer?
    private let gyroFiles: DeviceFiles?
    private let accelChannels: [OpaquePointer]
    private let gyroChannels: [OpaquePointer]
    private let accelPaths: [String]
    private let gyroPaths: [String]
    private let settings = PartSettings()
    private var lastTime = -Double.infinity
    /// The motion event, once the device has first been still; nil when the part has none that can work.
    private var watch: MotionWatch?
    private var watchChecked = false
    /// The acceleration of the last sample delivered: where the device was when the event was armed.
    private var lastAcceleration: Vector3?
    /// How long the motion event sleeps between safety reads: `motionSafetyInterval`, longer for a part whose
    /// raw reads sleep in the driver (`slowSafetyRead`).
    private var safetyInterval: Double?
    /// The raw counts of the accelerometer's last reading.
    private var lastRaw: Vector3?
    /// Whether the accelerometer's buffer delivered nothing at all before the capture fell back to polling: its
    /// interrupt line does not reach the host, and the motion event would come on that line.
    private var interruptUnheard = false
    /// The accelerometer's sampling frequency while it is polled, when raised because its raw reads sleep in the
    /// driver for a few sample periods (`quickenRawReads`); nil when it is the chosen one.
    private var polledHz: Double?

    init(source: SensorSource, context: IIOContext, device: OpaquePointer, accelerometer: SensorDescription,
         gyroscope: SensorDescription?, gyroscopeDevice: OpaquePointer?) {
        self.source = source
        self.ctx = context
        self.dev = device
        self.accel = accelerometer
        self.accelFiles = DeviceFiles(id: accelerometer.id)
        self.gyro = gyroscopeDevice == nil ? nil : gyroscope
        self.gyroDev = gyroscopeDevice
        self.gyroFiles = gyroscope.flatMap { g in g.id == accelerometer.id ? nil : DeviceFiles(id: g.id) }
        let accelChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(device, "accel_\($0)") }
        var gyroChannels: [OpaquePointer] = []
        if let gd = gyroscopeDevice {
            gyroChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(gd, "anglvel_\($0)") }
        }
        self.accelChannels = accelChannels
        self.gyroChannels = gyroChannels
        accelPaths = SensorCapture.rawPaths(accelerometer.id, "accel", accelChannels)
        gyroPaths = gyroscope.map { SensorCapture.rawPaths($0.id, "anglvel", gyroChannels) } ?? []
    }

    private var rate: Double { source.configuration.rate }
    private var gyroOnAccelDevice: Bool { gyro?.id == accel.id }

    func run() -> Outcome {
        defer {
            // Disarmed first: a driver that refuses threshold writes while its event is enabled would refuse
            // putting the threshold back.
            watch?.disarm()
            settings.restore()
            watch = nil
        }
        // First, as nothing else can be written while they run: the buffers a reader left enabled when it ended.
        var accelBusy = false
        if accel.capture == .buffered && accelFiles.read("buffer/enable") == "1" {
            accelBusy = !disableAbandonedBuffer(dev, accel.id)
        }
        if let gyro, let gyroDev, let files = gyroFiles, gyro.capture == .buffered, files.read("buffer/enable") == "1" {
            _ = disableAbandonedBuffer(gyroDev, gyro.id)
        }
        setFrequencies(accel.frequency?.chosen ?? rate)
        if accel.capture == .buffered {
            if accelBusy {
                SensorLog.once(.warning, "\(accel.id): its buffer is already enabled (\(accelFiles.path("buffer/enable")) reads 1), so another program is capturing from it (is iio-sensor-proxy running?); polling in_accel_*_raw at \(rate) Hz instead")
            } else {
                let outcome = runBuffered()
                if case .fallBack = outcome {} else { return outcome }
            }
        } else if let reason = accel.pollingReason {
            SensorLog.once(.info, "\(accel.id): polling in_accel_*_raw at \(rate) Hz: \(reason)")
        }
        return runPolled()
    }

    /// Disables the buffer of `device` when it was found enabled with nobody reading it, and returns whether it
    /// did; another program's buffer is left alone.
    ///
    /// A buffer is read through the device's node, which the kernel lets one process at a time hold open
    /// (`iio_chrdev_open`: EBUSY), and closing the node leaves the buffer enabled. A node that opens is one
    /// nobody reads: its reader ended without disabling the buffer (this service, killed or crashed, before
    /// its restart; iio-sensor-proxy killed).
    private func disableAbandonedBuffer(_ device: OpaquePointer, _ id: String) -> Bool {
        let node = "/dev/\(id)"
        let fd = Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        if let failure = IIOContext.writeDevice(device, "buffer/enable", "0") {
            let err = SystemError(operation: "write 0 to", path: SensorError.sysfsPath(id, "buffer/enable"), errno: failure.code,
                                  fix: SensorError.sysfsFix(failure.code))
            SensorLog.once(.warning, "\(id): its buffer was left enabled with nobody reading \(node), and disabling it failed: \(err)")
            return false
        }
        SensorLog.once(.info, "\(id): its buffer was left enabled with nobody reading \(node) (its reader ended without disabling it); disabled it")
        return true
    }

    /// Sets the accelerometer's sampling frequency (and a rate its driver requires to match) and the separate
    /// gyroscope's to the choices nearest `hz` from above.
    private func setFrequencies(_ hz: Double) {
        if let plan = accel.frequency { setAccelFrequency(plan.value(atLeast: hz)) }
        if let gyro, let gyroDev, !gyroOnAccelDevice, let plan = gyro.frequency {
            settings.write(gyroDev, gyro.id, plan.attribute, FrequencyPlan.text(plan.value(atLeast: hz)),
                           purpose: "keeping the driver's sampling frequency")
        }
    }

    /// Writes `hz`, one of the driver's choices, as the accelerometer's sampling frequency (and to the rates its
    /// driver requires to match); false when the driver refused it.
    @discardableResult
    private func setAccelFrequency(_ hz: Double) -> Bool {
        guard let plan = accel.frequency else { return false }
        let text = FrequencyPlan.text(hz)
        var taken = true
        for file in [plan.attribute] + plan.linked {
            taken = settings.write(dev, accel.id, file, text, purpose: "keeping the driver's sampling frequency") && taken
        }
        return taken
    }

    // MARK: Polled

    private enum Reading {
        case value(Vector3)
        case skipped
        case failed(SensorError)
    }

    /// Reads `in_<type>_<axis>_raw` of three channels, from their precomputed sysfs paths.
    private func readRaw(_ sensor: SensorDescription, _ paths: [String]) -> Reading {
        var v = (0.0, 0.0, 0.0)
        for (i, path) in paths.enumerated() {
            let d: Double
            switch SysfsNumber.read(path) {
            case .success(let n):
                d = n
            case .failure(.system(let e)):
                if !IIOContext.isPresent(sensor.id) { return .failed(.gone(device: sensor.id)) }
                if e == EACCES || e == EPERM {
                    return .failed(.io(SystemError(operation: "read", path: path, errno: e, fix: SensorError.sysfsFix(e))))
                }
                if e == EBUSY {
                    return .failed(.io(SystemError(operation: "read", path: path, errno: e,
                                                   fix: "the device's buffer is running, so another program is capturing from it (is iio-sensor-proxy running?); stop that program")))
                }
                let err = SystemError(operation: "read", path: path, errno: e, fix: nil)
                SensorLog.limited(.warning, key: "garbage", "\(err); sample skipped")
                return .skipped
            case .failure(.garbage(let text)):
                let err = SensorError.badValue(path: path, value: String(text.trimmedSysfs), expected: "a number")
                SensorLog.limited(.warning, key: "garbage", "\(err); sample skipped")
                return .skipped
            }
            switch i {
            case 0: v.0 = d
            case 1: v.1 = d
            default: v.2 = d
            }
        }
        return .value(Vector3(v.0, v.1, v.2))
    }

    /// The sysfs paths of the `raw` attributes of three channels.
    private static func rawPaths(_ id: String, _ prefix: String, _ channels: [OpaquePointer]) -> [String] {
        channels.enumerated().map { i, ch in
            SensorError.sysfsPath(id, IIOContext.channelAttributeFile(ch, "raw") ?? "in_\(prefix)_\(["x", "y", "z"][i])_raw")
        }
    }

    /// The gyroscope's current reading, or nil.
    private func polledGyro() -> Vector3? {
        guard let gyro, !gyroChannels.isEmpty else { return nil }
        if case .value(let raw) = readRaw(gyro, gyroPaths) { return gyro.calibration.apply(raw: raw) }
        return nil
    }

    /// Times one raw read of the gyroscope; a gyroscope that takes more than `slowReadShare` of a sample period
    /// is dropped (logged once): rotations are then decided from the accelerometer alone, at its full rate.
    ///
    /// Some drivers power the part up for each raw read and wait for it to settle (st_lsm6dsx sleeps three to
    /// four sample periods, st_accel two per axis) or ask a sensor hub (hid-sensor); read through a buffer,
    /// the same parts cost nothing per sample.
    private func keepPolledGyroIfFast() {
        guard let gyro, !gyroChannels.isEmpty else { return }
        let begin = MonotonicClock.now()
        _ = readRaw(gyro, gyroPaths)
        let took = MonotonicClock.now() - begin
        let period = 1 / rate
        guard took > SensorCapture.slowReadShare * period else { return }
        SensorLog.once(.warning, "\(gyro.id) (\(gyro.name)): one read of in_anglvel_*_raw takes \(Int((took * 1000).rounded())) ms, \(ScaleDiagnosis.format(took / period)) sample periods at \(FrequencyPlan.text(rate)) Hz, and the driver offers no buffer to read it through; rotations are decided from the accelerometer alone, which only makes some turns slower to report")
        self.gyro = nil
    }

    /// Hands one sample to the source, remembering where it found the device.
    private func deliver(_ sample: Sample) {
        lastTime = max(lastTime, sample.time)
        lastAcceleration = sample.acceleration
        source.deliver(sample)
    }

    /// One sample of the accelerometer (and a polled gyroscope), not delivered yet.
    private enum Taken {
        case sample(Sample)
        case skipped
        case failed(SensorError)
    }

    /// Reads the accelerometer (and a polled gyroscope) once.
    private func takePolled() -> Taken {
        takeRaw { _ in self.polledGyro() }
    }

    /// Reads the accelerometer's raw attributes once, with the angular velocity `rate` gives for its reading.
    private func takeRaw(_ rate: (_ acceleration: Vector3) -> Vector3?) -> Taken {
        switch readRaw(accel, accelPaths) {
        case .failed(let error):
            return .failed(error)
        case .skipped:
            return .skipped
        case .value(let raw):
            lastRaw = raw
            var sample = Sample(time: max(MonotonicClock.now(), lastTime), acceleration: accel.calibration.apply(raw: raw))
            sample.angularVelocity = rate(sample.acceleration)
            return .sample(sample)
        }
    }

    private func runPolled() -> Outcome {
        keepPolledGyroIfFast()
        let sleepsInDriver = quickenRawReads()
        let full = 1 / rate
        var next = MonotonicClock.now()
        var slow = false
        var holdUntil = -Double.infinity
        while true {
            if source.stopRequested { return .stopped }
            switch takePolled() {
            case .failed(let error): return .failed(error)
            case .skipped: break
            case .sample(let sample): deliver(sample)
            }
            if source.readInterval > 0, MonotonicClock.now() >= holdUntil {
                var end = watchWhileStill(takeOne: takePolled)
                if case .moved = end { resumeFrequencies() }
                if case .unavailable = end, sleepsInDriver { end = glanceWhileStill() }
                switch end {
                case .moved:
                    holdUntil = MonotonicClock.now() + source.configuration.motionHold
                    next = MonotonicClock.now()
                    slow = false
                    continue
                case .ended(let outcome):
                    return outcome
                case .unavailable:
                    break
                }
            }
            // The pace the sampling policy asked for after this sample: one read per interval while still.
            let still = MonotonicClock.now() >= holdUntil ? source.readInterval : 0
            if (still > 0) != slow {
                slow = still > 0
                SensorLog.write(.debug, slow ? "\(accel.id): the device is still: reading it every \(still) s"
                                            : "\(accel.id): the device moves: reading it at \(rate) Hz")
            }
            let step = slow ? still : full
            next += step
            let now = MonotonicClock.now()
            if next < now - step { next = now + step }
            if !source.wait(until: next) { return .stopped }
        }
    }

    /// Whether a raw read of the accelerometer sleeps in the driver (takes longer than `slowSafetyRead`), found by
    /// timing one when polling starts.
    ///
    /// Some drivers power the part up for each raw read and wait a few sample periods of its sampling frequency
    /// for it to settle: st_lsm6dsx three to four (`st_lsm6dsx_read_oneshot`), 58 to 77 ms at 52 Hz, for each
    /// axis. Such a part is polled at the highest frequency it lists, where the wait is a few ms, when a read
    /// then takes less time (put back when the capture ends, as every setting is): the driver powers the part
    /// for the read only, so the frequency costs nothing between reads, and three axes fit in a sample period.
    private func quickenRawReads() -> Bool {
        guard let path = accelPaths.first else { return false }
        func timed() -> Double {
            let begin = MonotonicClock.now()
            _ = SysfsNumber.read(path)
            return MonotonicClock.now() - begin
        }
        let before = timed()
        guard before > SensorCapture.slowSafetyRead else { return false }
        let ms = { (t: Double) in "\(Int((t * 1000).rounded())) ms" }
        guard let plan = accel.frequency, let top = plan.available.last ?? plan.range?.upperBound, top > plan.chosen,
              setAccelFrequency(top) else {
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)): reading one axis at a time while still")
            return true
        }
        let after = timed()
        guard after < before else {
            setAccelFrequency(plan.chosen)
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)), \(ms(after)) at \(FrequencyPlan.text(top)) Hz: reading one axis at a time while still")
            return true
        }
        polledHz = top
        SensorLog.once(.info, "\(accel.id) (\(accel.name)): one raw read takes \(ms(before)) at \(FrequencyPlan.text(plan.chosen)) Hz, \(ms(after)) at \(FrequencyPlan.text(top)) Hz (the driver waits for the part to settle): polling it at \(FrequencyPlan.text(top)) Hz, one axis at a time while still")
        return true
    }

    /// Puts the sampling frequencies back to the full rate's after watching for motion, the accelerometer's to
    /// the one it is polled at (`polledHz`).
    private func resumeFrequencies() {
        setFrequencies(accel.frequency?.chosen ?? rate)
        if let polledHz { setAccelFrequency(polledHz) }
    }

    /// While the sampling policy says still, on a polled part whose raw reads sleep in the driver: reads one axis
    /// once every read interval (`glance`) instead of three, so each read costs a wake-up for the timer and one
    /// for the driver's sleep. A glance that finds the device where it was delivers nothing (as while watching
    /// for motion: the policy stays at the still pace without it); one that does not is followed by a full read,
    /// delivered when it finds the device moved (`movedDeparture`), which ends the still pace.
    private func glanceWhileStill() -> StillEnd {
        SensorLog.write(.debug, "\(accel.id): the device is still: reading one axis every \(source.readInterval) s (a raw read sleeps in the driver)")
        var next = MonotonicClock.now()
        while true {
            next = max(next + source.readInterval, MonotonicClock.now())
            if !source.wait(until: next) { return .ended(.stopped) }
            if glance() { continue }
            switch takePolled() {
            case .failed(let error):
                return .ended(.failed(error))
            case .skipped:
                continue
            case .sample(let sample):
                if !departs(sample) { continue }
                deliver(sample)
                if source.stopRequested { return .ended(.stopped) }
                SensorLog.write(.debug, "\(accel.id): the device moves: reading it at \(rate) Hz")
                return .moved
            }
        }
    }

    // MARK: Watching for motion

    /// How watching for motion ended.
    private enum StillEnd {
        /// The device moved: read it at the full rate, for `motionHold` at least.
        case moved
        /// The capture ends.
        case ended(Outcome)
        /// The part cannot watch for motion: read it at the still pace.
        case unavailable
    }

    /// The part, as what is known of its events across captures is filed: "iio:device0 BMA250E".
    private var part: String { "\(accel.id) \(accel.name)" }

    /// The motion event, set up the first time the device is still: nil when the driver offers none
    /// (`MotionEventDriver.matching`), when its events were found not to arrive, or when they cannot work (each
    /// logged once).
    private func motionWatch() -> MotionWatch? {
        if watchChecked { return watch }
        watchChecked = true
        guard let driver = MotionEventDriver.matching(accelFiles), source.motionEventsWork(part) != false else { return nil }
        // The drivers in the table register their trigger (st_lsm6dsx its buffer) only with an interrupt line,
        // and raise their motion event on the same line: without one, the enable is taken and nothing fires.
        guard accel.capture == .buffered else {
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): not watching for motion with its \(driver.driver) event (\(accelFiles.path("events/" + driver.enable[0]))): the driver registered no trigger or buffer for it, which it does only when the part's interrupt line is wired up, and the event needs that line too; reading it at the still pace while still")
            return nil
        }
        // A buffer whose trigger never fired: the driver has an interrupt, but the board does not wire the pin
        // the driver routes it to (bmc150 on boards that wire INT2), and the event is raised on that pin too.
        guard !interruptUnheard else {
            SensorLog.once(.info, "\(accel.id) (\(accel.name)): not watching for motion with its \(driver.driver) event (\(accelFiles.path("events/" + driver.enable[0]))): its buffer's trigger never fired, so its interrupt does not reach the host, and the event would come the same way; reading it at the still pace while still")
            return nil
        }
        do {
            let stream = try MotionEventStream(device: accel.id)
            watch = MotionWatch(driver: driver, stream: stream, device: dev, id: accel.id, settings: settings)
        } catch {
            SensorLog.once(error.isPermission ? .error : .warning, "\(error); reading \(accel.id) at the still pace while still instead of watching for motion with its \(driver.driver) event")
        }
        return watch
    }

    /// Gives up the motion event for the rest of the capture.
    private func dropWatch() {
        watch?.disarm()
        watch = nil
    }

    /// How far a safety read must find the device from where it was when the event was armed to count as moved:
    /// the sampling policy's widest still band (a relative distance of 0.1, about 6°).
    static let movedDeparture = 0.1

    /// Whether `sample` finds the device more than `movedDeparture` from the last pose delivered (always, with none).
    private func departs(_ sample: Sample) -> Bool {
        guard let pose = lastAcceleration, pose.length > 0 else { return true }
        return (sample.acceleration - pose).length > SensorCapture.movedDeparture * pose.length
    }

    /// Whether one raw read, of the axis that tells most about a turn from where the device was (the sensor axis
    /// behind the larger of the device's x and y components of gravity; behind z when the device lies flat,
    /// where only lifting it matters), finds it unmoved (`movedDeparture`). A quarter turn takes that component
    /// to nearly 0, a half turn reverses it. One read instead of three: some drivers sleep for each.
    private func glance() -> Bool {
        guard let raw = lastRaw else { return false }
        let c = accel.calibration
        let pose = c.apply(raw: raw)
        let g = pose.length
        guard g > 0 else { return false }
        let row = (pose.x * pose.x + pose.y * pose.y).squareRoot() >= 0.5 * g
            ? (abs(pose.x) >= abs(pose.y) ? c.matrix.row0 : c.matrix.row1) : c.matrix.row2
        let weights = [row.x * c.scale.x, row.y * c.scale.y, row.z * c.scale.z]
        let axis = weights.indices.max { abs(weights[$0]) < abs(weights[$1]) }!
        guard axis < accelPaths.count, case .success(let now) = SysfsNumber.read(accelPaths[axis]) else { return false }
        let before = [raw.x, raw.y, raw.z][axis]
        return abs((now - before) * weights[axis]) <= SensorCapture.movedDeparture * g
    }

    /// A safety read that takes longer than this slept in the driver: some power the part up for each raw read
    /// and wait for a sample (st_lsm6dsx, a sample period), which wakes the thread once more. Such a part is read
    /// three times less often (every 30 s), so that its safety reads cost no more wake-ups than another's.
    static let slowSafetyRead = 0.01

    /// While the sampling policy says still: arms the part's motion event at `motionSampleRate`, and sleeps on
    /// it, reading the part once every `motionSafetyInterval` with `takeOne` in case an event was lost. A read
    /// that finds the device where it was is not delivered: the engine would take the gap before it for a
    /// restart, and the policy would ask for the full rate. One that finds it moved (`movedDeparture`) without
    /// an event is delivered and ends the watch like an event; if no event has ever arrived from the part, its
    /// events do not work, and it is read at the still pace from then on (logged once).
    private func watchWhileStill(takeOne: () -> Taken) -> StillEnd {
        guard let watch = motionWatch() else { return .unavailable }
        let c = source.configuration
        let full = accel.frequency?.chosen ?? rate
        let hz = min(full, accel.frequency?.value(atLeast: c.motionSampleRate) ?? full)
        let bits = accelFiles.read("scan_elements/in_accel_x_type").flatMap { ScanFormat(parsing: $0) }?.bits
        var step: Double?
        if case .counts(let file?, _) = watch.driver.unit { step = accelFiles.read("events/" + file).flatMap { Double($0) } }
        guard let threshold = watch.driver.threshold(perSecond: c.motionRate, hz: hz, scale: accel.calibration.scale.x,
                                                     bits: bits, step: step) else {
            SensorLog.once(.warning, "\(accel.id) (\(accel.name)): the resolution of its readings is unknown (\(accelFiles.path("scan_elements/in_accel_x_type")) does not say), and its \(watch.driver.driver) motion threshold counts a share of the full scale; reading it at the still pace while still")
            dropWatch()
            return .unavailable
        }
        setFrequencies(hz)
        guard watch.arm(threshold: threshold) else {
            dropWatch()
            resumeFrequencies()
            return .unavailable
        }
        defer { watch.disarm() }
        SensorLog.write(.debug, "\(accel.id): the device is still: watching for motion with its \(watch.driver.driver) event (threshold \(threshold) at \(FrequencyPlan.text(hz)) Hz), reading it every \(FrequencyPlan.text(safetyInterval ?? c.motionSafetyInterval)) s in case an event is lost")
        while true {
            switch watch.wait(seconds: safetyInterval ?? c.motionSafetyInterval, wake: source.wakeDescriptor) {
            case .stopped:
                return .ended(.stopped)
            case .motion:
                source.setMotionEventsWork(part, true)
                SensorLog.write(.debug, "\(accel.id): the part reported motion: reading it at \(FrequencyPlan.text(rate)) Hz")
                return .moved
            case .failed(let error):
                if !IIOContext.isPresent(accel.id) { return .ended(.failed(.gone(device: accel.id))) }
                SensorLog.once(.warning, "\(error); reading \(accel.id) at the still pace while still instead of watching for motion")
                dropWatch()
                resumeFrequencies()
                return .unavailable
            case .timeout:
                let begin = MonotonicClock.now()
                let unmoved = glance()
                if safetyInterval == nil {
                    let slow = MonotonicClock.now() - begin > SensorCapture.slowSafetyRead
                    safetyInterval = c.motionSafetyInterval * (slow ? 3 : 1)
                    if slow {
                        SensorLog.write(.debug, "\(accel.id): a raw read sleeps in the driver: reading it every \(FrequencyPlan.text(safetyInterval!)) s while watching for motion")
                    }
                }
                if unmoved { continue }
                let sample: Sample
                let taken = takeOne()
                switch taken {
                case .failed(let error): return .ended(.failed(error))
                case .skipped: continue
                case .sample(let s): sample = s
                }
                if !departs(sample) { continue }
                deliver(sample)
                if source.stopRequested { return .ended(.stopped) }
                if source.motionEventsWork(part) == true {
                    SensorLog.write(.debug, "\(accel.id): the device moved and no motion event said so: an event was lost")
                } else {
                    source.setMotionEventsWork(part, false)
                    SensorLog.once(.warning, "\(accel.id) (\(accel.name)): the device moved and its \(watch.driver.driver) motion event (\(accelFiles.path("events/" + watch.driver.enable[0]))) did not report it: no event has arrived from it since it was armed, so the part's interrupt line is probably not wired up; reading it at the still pace while still from now on")
                    dropWatch()
                }
                return .moved
            }
        }
    }

    // MARK: Buffered

    /// A sampling frequency and the scans per wake-up.
    private struct Pace: Equatable {
        var hz: Double
        var batch: Int
    }

    /// The pace for the policy's current read interval: at the full rate, the configured frequency and about ten
    /// wake-ups a second; while still, the lowest frequency the part offers at or above the policy's read rate
    /// (and at least two samples per wake-up), batched to wake about once every `stillWakeInterval`.
    private func pace(still: Bool) -> Pace {
        let full = accel.frequency?.chosen ?? rate
        let interval = source.readInterval
        var hz = full, wake = 0.1
        if still, interval > 0 {
            wake = source.configuration.stillWakeInterval
            hz = min(full, accel.frequency?.value(atLeast: max(1 / interval, 2 / wake)) ?? full)
        }
        var batch = max(1, Int((hz * wake).rounded(.down)))
        for limit in [accel.batchLimit, gyroFiles == nil ? nil : gyro?.batchLimit] {
            if let limit { batch = min(batch, limit) }
        }
        return Pace(hz: hz, batch: batch)
    }

    /// Attaches `trigger` to `device` unless it is attached already; false when the driver refused it.
    private func attach(_ trigger: String?, to device: OpaquePointer, _ id: String, files: DeviceFiles) -> Bool {
        guard let trigger, files.read("trigger/current_trigger") != trigger else { return true }
        return settings.write(device, id, "trigger/current_trigger", trigger,
                              purpose: "so its buffer cannot run; polling instead")
    }

    private func runBuffered() -> Outcome {
        guard attach(accel.trigger, to: dev, accel.id, files: accelFiles) else { return .fallBack }
        // A separate gyroscope is read through its own buffer when it has one that can run; otherwise polled,
        // where its raw reads are fast enough.
        var gyroBuffered = false
        if let gyro, let gyroDev, let files = gyroFiles {
            gyroBuffered = gyro.capture == .buffered && files.read("buffer/enable") != "1"
                && attach(gyro.trigger, to: gyroDev, gyro.id, files: files)
            if !gyroBuffered { keepPolledGyroIfFast() }
        }
        settings.remember(dev, accel.id, "buffer/length")
        settings.remember(dev, accel.id, "buffer/watermark")
        if gyroBuffered, let gyro, let gyroDev {
            settings.remember(gyroDev, gyro.id, "buffer/length")
            settings.remember(gyroDev, gyro.id, "buffer/watermark")
        }
        var first = true
        // The separate gyroscope's readings of the last second, kept across changes of pace: reopened at the
        // still pace, its first batch takes a wake-up to fill, and until then the last readings stand in.
        var rates: [(time: Double, rate: Vector3)] = []
        // The accelerometer's reading when one last matched a gyroscope reading (`read`).
        var anchor: Vector3?
        // Each device's clock offset, kept across changes of pace: a batch that waited in the buffer (the first
        // after reopening at the still pace, drained with the accelerometer's) must not set it afresh.
        var offsets: (accel: Double?, gyro: Double?) = (nil, nil)
        // Until then the part is read at the full rate whatever the sampling policy says: a motion event fired.
        var holdUntil = -Double.infinity
        // While the event is armed, the part is read now and then through its raw attributes (the buffer is off),
        // with the gyroscope's latest reading standing in for a separate gyroscope's, as at the still pace.
        let takeOne = { [self] () -> Taken in
            takeRaw { acceleration in
                if let gyro, gyroOnAccelDevice {
                    if case .value(let g) = readRaw(gyro, gyroPaths) { return gyro.calibration.apply(raw: g) }
                } else if gyro != nil, let anchor, let last = rates.last,
                          SensorCapture.within(SensorCapture.standInAngle, anchor, acceleration) {
                    return last.rate
                }
                return nil
            }
        }
        while true {
            // The last pace's buffers are released by now: the part can watch for motion itself.
            if !first, source.readInterval > 0, MonotonicClock.now() >= holdUntil {
                switch watchWhileStill(takeOne: takeOne) {
                case .moved:
                    holdUntil = MonotonicClock.now() + source.configuration.motionHold
                case .ended(let outcome):
                    return outcome
                case .unavailable:
                    break
                }
            }
            let still = source.readInterval > 0 && MonotonicClock.now() >= holdUntil
            let pace = self.pace(still: still)
            if !first {
                setFrequencies(pace.hz)
                SensorLog.write(.debug, "\(accel.id): the device \(still ? "is still" : "moves"): reading it at \(FrequencyPlan.text(pace.hz)) Hz, \(pace.batch) samples per wake-up")
            }
            let streams: (accel: BufferStream, gyro: BufferStream?)
            switch open(pace, still: still, gyroBuffered: gyroBuffered) {
            case .success(let s): streams = s
            case .failure(let outcome): return outcome
            }
            streams.accel.clockOffset = offsets.accel
            streams.gyro?.clockOffset = offsets.gyro
            if let outcome = read(streams, pace: pace, still: still, first: first, gyroPolled: !gyroBuffered, holdUntil: holdUntil,
                                 rates: &rates, anchor: &anchor) {
                return outcome
            }
            offsets = (streams.accel.clockOffset, streams.gyro?.clockOffset ?? offsets.gyro)
            first = false
        }
    }

    /// The separate gyroscope's sampling frequency at `pace`: the choice nearest the accelerometer's from above
    /// (cros-ec gyroscopes go no lower than 25 Hz).
    private func gyroRate(_ pace: Pace) -> Double {
        guard let gyro, !gyroOnAccelDevice else { return pace.hz }
        return gyro.frequency?.value(atLeast: pace.hz) ?? pace.hz
    }

    /// Enables the buffers: the accelerometer's (with its own gyroscope's channels), and a separate gyroscope's.
    private func open(_ pace: Pace, still: Bool, gyroBuffered: Bool) -> Result<(accel: BufferStream, gyro: BufferStream?), Outcome> {
        let batch = pace.batch
        var channels = accelChannels
        if gyroOnAccelDevice, gyro != nil { channels += gyroChannels }
        let accelStream: BufferStream
        do {
            accelStream = try BufferStream(device: dev, files: accelFiles, channels: channels,
                                           timestamp: accel.hasTimestamp ? IIOContext.inputChannel(dev, "timestamp") : nil,
                                           batch: batch)
        } catch {
            return .failure(refused(accel.id, error.errno, enabled: channels))
        }
        guard gyroBuffered, let gyro, let gyroDev, let gyroFiles else { return .success((accelStream, nil)) }
        do {
            // While still, the same time per batch as the accelerometer's: it is drained with the accelerometer's
            // batches. While the device moves, a third of it: an accelerometer sample waits for the gyroscope's
            // batch that covers it, and the two devices' batches do not start together, so with batches of the
            // same length a sample could wait a whole batch period more than its own.
            let share = still ? 1.0 : 1.0 / 3
            let gyroBatch = max(1, Int((gyroRate(pace) * Double(batch) / pace.hz * share).rounded()))
            let gyroStream = try BufferStream(device: gyroDev, files: gyroFiles, channels: gyroChannels,
                                              timestamp: gyro.hasTimestamp ? IIOContext.inputChannel(gyroDev, "timestamp") : nil,
                                              batch: gyroBatch, blocking: false)
            return .success((accelStream, gyroStream))
        } catch {
            SensorLog.once(.warning, "\(SensorError.buffer(device: gyro.id, operation: "enable", errno: error.errno)); rotations are decided from the accelerometer alone")
            self.gyro = nil
            return .success((accelStream, nil))
        }
    }

    /// What a refused buffer means: the device went away, permission (polling still works: raw attributes are
    /// usually readable by everyone), or a refusal that polling works around.
    private func refused(_ id: String, _ e: Int32, enabled: [OpaquePointer]) -> Outcome {
        if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
        if e == EACCES || e == EPERM {
            // Enabling a buffer writes its sysfs controls and opens /dev/iio:deviceN; libiio only says EACCES:
            // name the file it was refused.
            let cause = deniedBufferFile(id, enabled).map { "\($0)" }
                ?? "\(SensorError.buffer(device: id, operation: "open", errno: e))"
            SensorLog.once(.error, "\(cause); polling \(SensorError.sysfsPath(id, "in_accel_*_raw")) at \(rate) Hz instead of reading the buffer")
            return .fallBack
        }
        let why = e == EBUSY ? " (another program holds /dev/\(id): is iio-sensor-proxy running?)" : ""
        SensorLog.once(.warning, "\(id): buffered capture unavailable: \(SensorError.buffer(device: id, operation: "enable", errno: e))\(why); polling in_accel_*_raw at \(rate) Hz instead")
        return .fallBack
    }

    /// Reads batches until the capture ends (the outcome) or the sampling policy changes pace, or the full rate
    /// held after a motion event (`holdUntil`) ends (nil: the caller reconfigures the part and calls again). Accelerometer samples wait for the separate gyroscope's batch
    /// that covers them, for at most one of its batch periods and two sample periods past their own time; a
    /// separate gyroscope without a buffer
    /// (`gyroPolled`) is read once a batch.
    private func read(_ streams: (accel: BufferStream, gyro: BufferStream?), pace: Pace, still: Bool, first: Bool,
                      gyroPolled: Bool, holdUntil: Double, rates: inout [(time: Double, rate: Vector3)],
                      anchor: inout Vector3?) -> Outcome? {
        let id = accel.id
        let batchPeriod = Double(pace.batch) / pace.hz
        let silence = max(source.configuration.bufferSilence, 2 * batchPeriod)
        let period = 1 / pace.hz
        let gyroHz = gyroRate(pace)
        // How long past its own time a sample waits for the gyroscope's covering reading: one gyroscope batch
        // and two sample periods of slack.
        let gyroWait = (streams.gyro.map { Double($0.batch) / gyroHz } ?? 0) + 2 * period
        var gyroStream = streams.gyro
        var pending: [Sample] = []
        var delivered = !first
        var lastAccel = MonotonicClock.now(), lastGyro = lastAccel
        ctx.setTimeout(milliseconds: UInt32(silence * 1000))
        while true {
            if source.stopRequested { return .stopped }
            // While still, a separate gyroscope does not wake the thread: its buffer is drained with the
            // accelerometer's batches, and the samples go out without waiting for it.
            var fds = [pollfd(fd: streams.accel.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: still ? -1 : gyroStream?.fd ?? -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: source.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            let now0 = MonotonicClock.now()
            var wait = lastAccel + silence - now0
            if let first = pending.first { wait = min(wait, first.time + gyroWait - now0) }
            _ = poll(&fds, 3, Int32(max(0, wait * 1000).rounded(.up)))
            if source.stopRequested { return .stopped }
            if fds[0].revents != 0 {
                switch refill(streams.accel) {
                case .failure(let outcome): return outcome
                case .success(let bytes):
                    lastAccel = MonotonicClock.now()
                    delivered = true
                    decodeAccel(streams.accel, bytes: bytes, hz: pace.hz, into: &pending, rates: &rates)
                }
            }
            if let g = gyroStream, fds[1].revents != 0 || still && fds[0].revents != 0 {
                // Everything waiting, a batch at a time (the buffer does not block).
                drain: while true {
                    switch refill(g) {
                    case .failure:
                        gyroStream = nil
                        break drain
                    case .success(let bytes):
                        guard bytes > 0 else { break drain }
                        lastGyro = MonotonicClock.now()
                        decodeGyro(g, bytes: bytes, hz: gyroHz, into: &rates)
                    }
                }
            }
            let now = MonotonicClock.now()
            if now - lastAccel > silence {
                if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
                // A silent buffer, from the start or later on (a stuck trigger, a driver that stops streaming):
                // poll the raw attributes instead; if those fail too, the sensor is lost.
                let what = delivered ? "went silent for" : "delivered nothing within"
                interruptUnheard = !delivered
                SensorLog.once(.warning, "\(id): the buffer \(what) \(Int((silence * 1000).rounded())) ms; polling in_accel_*_raw at \(rate) Hz instead")
                return .fallBack
            }
            if let g = gyroStream, now - lastGyro > silence {
                SensorLog.once(.warning, "\(g.id): the gyroscope's buffer \(lastGyro > lastAccel - silence ? "went silent" : "delivered nothing") for \(Int((silence * 1000).rounded())) ms; rotations are decided from the accelerometer alone")
                gyroStream = nil
                gyro = nil
            }
            // Deliver in time order: a sample once the gyroscope's readings have reached it, or once it has
            // waited `gyroWait` for them.
            let covered = gyroStream == nil || still ? Double.infinity : (rates.last?.time ?? -.infinity) + period / 2
            // A separate gyroscope without a buffer of its own is read once a batch.
            let polled = gyro != nil && !gyroOnAccelDevice && gyroPolled && !pending.isEmpty ? polledGyro() : nil
            var sent = 0
            for sample in pending {
                guard sample.time <= covered || now - sample.time > gyroWait else { break }
                var s = sample
                if gyro != nil, !gyroOnAccelDevice {
                    if gyroPolled {
                        s.angularVelocity = polled
                    } else if gyroStream != nil {
                        s.angularVelocity = SensorCapture.rate(at: s.time, in: rates, within: 2 * period)
                        // While still, a sample can go out before the gyroscope's batch that covers it (and
                        // the first batch after a change of pace takes a wake-up to fill). The latest reading
                        // stands in while the accelerometer shows the device where it was when a reading last
                        // matched: without one the engine would fall back to the accelerometer alone, and
                        // back, at every batch; past that point the device may be turning, and a rate from
                        // before the turn must not say it is not.
                        if s.angularVelocity != nil {
                            anchor = s.acceleration
                        } else if still, let anchor, let last = rates.last,
                                  SensorCapture.within(SensorCapture.standInAngle, anchor, s.acceleration) {
                            s.angularVelocity = last.rate
                        }
                    }
                }
                deliver(s)
                sent += 1
                if source.stopRequested { return .stopped }
            }
            pending.removeFirst(sent)
            if let cut = rates.firstIndex(where: { $0.time >= now - 1 }), cut > 0 { rates.removeFirst(cut) }
            if (source.readInterval > 0 && now >= holdUntil) != still { return nil }
        }
    }

    /// How far the accelerometer's direction may have moved from where a gyroscope reading last matched for the
    /// latest reading to stand in for a missing one (`read`): farther than a still part's noise.
    static let standInAngle = 5.0

    /// Whether directions `a` and `b` lie within `degrees` of each other.
    static func within(_ degrees: Double, _ a: Vector3, _ b: Vector3) -> Bool {
        let lengths = a.length * b.length
        return lengths > 0 && a.dot(b) >= lengths * Angles.cosDegrees(degrees)
    }

    /// The gyroscope reading nearest `time` among `rates` (in time order), if one lies within `window`.
    private static func rate(at time: Double, in rates: [(time: Double, rate: Vector3)], within window: Double) -> Vector3? {
        var best: (Double, Vector3)?
        for r in rates.reversed() {
            let d = abs(r.time - time)
            if d <= window, best.map({ d < $0.0 }) ?? true { best = (d, r.rate) }
            if r.time < time - window { break }
        }
        return best?.1
    }

    /// One refill: the bytes read, or how the capture ends.
    private func refill(_ stream: BufferStream) -> Result<Int, Outcome> {
        source.setActiveBuffer(stream.buffer)
        let n = stream.refill()
        source.setActiveBuffer(nil)
        if source.stopRequested { return .failure(.stopped) }
        guard n < 0 else { return .success(n) }
        let e = Int32(-n)
        if !IIOContext.isPresent(stream.id) { return .failure(.failed(.gone(device: stream.id))) }
        if e == ETIMEDOUT || e == EAGAIN { return .success(0) }
        return .failure(.failed(.buffer(device: stream.id, operation: "read", errno: e)))
    }

    private func decodeAccel(_ stream: BufferStream, bytes: Int, hz: Double, into pending: inout [Sample],
                             rates: inout [(time: Double, rate: Vector3)]) {
        let times = stream.times(bytes: bytes, hz: hz, now: MonotonicClock.now())
        let imu = gyroOnAccelDevice ? gyro : nil
        stream.forEachScan(bytes: bytes) { i, _, v, _ in
            let time = max(times[i], lastTime)
            lastTime = time
            lastRaw = Vector3(v[0], v[1], v[2])
            var sample = Sample(time: time, acceleration: accel.calibration.apply(raw: lastRaw!))
            if let imu, v.count >= 6 { sample.angularVelocity = imu.calibration.apply(raw: Vector3(v[3], v[4], v[5])) }
            pending.append(sample)
        }
    }

    private func decodeGyro(_ stream: BufferStream, bytes: Int, hz: Double, into rates: inout [(time: Double, rate: Vector3)]) {
        guard let gyro else { return }
        let times = stream.times(bytes: bytes, hz: hz, now: MonotonicClock.now())
        stream.forEachScan(bytes: bytes) { i, _, v, _ in
            rates.append((times[i], gyro.calibration.apply(raw: Vector3(v[0], v[1], v[2]))))
        }
    }

    /// The first file that opening a buffer needs and this process may not use, in the order libiio uses them:
    /// `buffer/enable` and `buffer/length` (written), the device node (read and written), then each enabled
    /// channel's `scan_elements/in_*_en` (written). Nil when none is refused.
    private func deniedBufferFile(_ id: String, _ enabled: [OpaquePointer]) -> SystemError? {
        var files = [(SensorError.sysfsPath(id, "buffer/enable"), W_OK, "write"),
                     (SensorError.sysfsPath(id, "buffer/length"), W_OK, "write"),
                     ("/dev/\(id)", R_OK | W_OK, "open")]
        for ch in enabled {
            files.append((SensorError.sysfsPath(id, "scan_elements/in_\(IIOContext.channelID(ch))_en"), W_OK, "write"))
        }
        for (path, mode, operation) in files where access(path, mode) != 0 {
            let e = errno
            if e == EACCES || e == EPERM || e == EROFS {
                return SystemError(operation: operation, path: path, errno: e, fix: SensorError.sysfsFix(e))
            }
        }
        return nil
    }
}
