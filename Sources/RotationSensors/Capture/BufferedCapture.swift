import Glibc
import RotationEngine
import RotationSystem

/// The buffered mode: the accelerometer's buffer (with its own gyroscope's channels) and a separate gyroscope's,
/// read in batches (`BatchReader`) at a pace that follows the sampling policy, and while still the motion event
/// (`MotionEventStill`) with the buffers off, or a HID hub's hysteresis (`HysteresisStill`).
///
/// Everything written to a device is written while its buffer is disabled, in the order the kernel accepts:
/// the sampling frequency (and a rate the driver requires to match it), the trigger, then libiio's buffer
/// length, watermark, scan elements and enable. Owned by the sensor thread.
final class BufferedCapture {
    /// A sampling frequency and the scans per wake-up.
    struct Pace: Equatable {
        var hz: Double
        var batch: Int
    }

    private let sensor: CapturedSensor
    private let motionEvent: MotionEventStill
    private let reader: BatchReader

    init(sensor: CapturedSensor, motionEvent: MotionEventStill) {
        self.sensor = sensor
        self.motionEvent = motionEvent
        self.reader = BatchReader(sensor: sensor)
    }

    /// Reads the sensor until the capture ends, or `.fallBack` when its buffer cannot run.
    func run() -> SensorCapture.Outcome {
        let accel = sensor.accel, source = sensor.source
        guard attach(accel.trigger, to: sensor.dev, accel.id, files: sensor.accelFiles) else { return .fallBack }
        let gyroBuffered = prepareGyroscope()
        sensor.settings.remember(sensor.dev, accel.id, "buffer/length")
        sensor.settings.remember(sensor.dev, accel.id, "buffer/watermark")
        if gyroBuffered, let gyro = sensor.gyro, let gyroDev = sensor.gyroDev {
            sensor.settings.remember(gyroDev, gyro.id, "buffer/length")
            sensor.settings.remember(gyroDev, gyro.id, "buffer/watermark")
        }
        var first = true
        // Each device's clock offset, kept across changes of pace: a batch that waited in the buffer (the first
        // after reopening at the still pace, drained with the accelerometer's) must not set it afresh.
        var offsets: (accel: Double?, gyro: Double?) = (nil, nil)
        // Until then the sensor is read at the full rate whatever the sampling policy says: a motion event fired.
        var holdUntil = -Double.infinity
        while true {
            // The last pace's buffers are released by now: the sensor can watch for motion itself.
            if !first, source.readInterval > 0, MonotonicClock.now() >= holdUntil {
                sensor.confirmPolledGyro()
                var end = motionEvent.runWhileStill(takeOne: reader.takeOne)
                if case .unavailable = end { end = HysteresisStill(sensor: sensor).runWhileStill(takeOne: sensor.takePolled) }
                switch end {
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
                sensor.setFrequencies(pace.hz)
                Log.debug("\(accel.id): the device \(still ? "is still" : "moves"): reading it at \(FrequencyPlan.text(pace.hz)) Hz, \(pace.batch == 1 ? "one sample" : "\(pace.batch) samples") per wake-up")
            }
            let streams: BatchReader.Streams
            switch open(pace, still: still, gyroBuffered: gyroBuffered) {
            case .success(let s): streams = s
            case .failure(let outcome): return outcome
            }
            streams.accel.clockOffset = offsets.accel
            streams.gyro?.clockOffset = offsets.gyro
            if let outcome = reader.read(streams, pace: pace, still: still, first: first, gyroPolled: !gyroBuffered,
                                         holdUntil: holdUntil) {
                return outcome
            }
            if reader.woke {
                // Read at the full rate through buffers enabled again (the next pace's).
                reader.woke = false
                holdUntil = MonotonicClock.now() + source.configuration.motionHold
            }
            offsets = (streams.accel.clockOffset, streams.gyro?.clockOffset ?? offsets.gyro)
            first = false
        }
    }

    /// Whether a separate gyroscope is read through its own buffer: when it has one that can run; otherwise it
    /// is polled, where its raw reads are fast enough.
    private func prepareGyroscope() -> Bool {
        guard let gyro = sensor.gyro, let gyroDev = sensor.gyroDev, let files = sensor.gyroFiles else { return false }
        let buffered = gyro.plan.mode == .buffered && !SensorSettings.bufferRuns(gyro.id)
            && attach(gyro.trigger, to: gyroDev, gyro.id, files: files)
        if !buffered { sensor.checkPolledGyro() }
        return buffered
    }

    /// The pace for the policy's current read interval: at the full rate, the configured frequency, batched to
    /// wake about once every `movingWakeInterval` (one sample at 50 Hz); while still, the lowest frequency the sensor offers at or above the policy's read rate
    /// (and at least two samples per wake-up), batched to wake about once every `stillWakeInterval`.
    private func pace(still: Bool) -> Pace {
        let accel = sensor.accel
        let full = accel.frequency?.chosen ?? sensor.rate
        let interval = sensor.source.readInterval
        var hz = full, wake = sensor.source.configuration.movingWakeInterval
        if still, interval > 0 {
            wake = sensor.source.configuration.stillWakeInterval
            hz = min(full, accel.frequency?.value(atLeast: max(1 / interval, 2 / wake)) ?? full)
        }
        var batch = max(1, Int((hz * wake).rounded(.down)))
        for limit in [accel.batchLimit, sensor.gyroFiles == nil ? nil : sensor.gyro?.batchLimit] {
            if let limit { batch = min(batch, limit) }
        }
        return Pace(hz: hz, batch: batch)
    }

    /// Attaches `trigger` to `device` unless it is attached already; false when the driver refused it.
    private func attach(_ trigger: String?, to device: OpaquePointer, _ id: String, files: DeviceFiles) -> Bool {
        guard let trigger, files.read("trigger/current_trigger") != trigger else { return true }
        return sensor.settings.write(device, id, "trigger/current_trigger", trigger,
                                   purpose: "so its buffer cannot run; polling instead")
    }

    /// The separate gyroscope's sampling frequency at `pace`: the choice nearest the accelerometer's from above
    /// (cros-ec gyroscopes go no lower than 25 Hz).
    static func gyroRate(_ sensor: CapturedSensor, _ pace: Pace) -> Double {
        guard let gyro = sensor.gyro, !sensor.gyroOnAccelDevice else { return pace.hz }
        return gyro.frequency?.value(atLeast: pace.hz) ?? pace.hz
    }

    /// Enables the buffers: the accelerometer's (with its own gyroscope's channels), and a separate gyroscope's.
    private func open(_ pace: Pace, still: Bool, gyroBuffered: Bool) -> Result<BatchReader.Streams, SensorCapture.Outcome> {
        let accel = sensor.accel, dev = sensor.dev
        let batch = pace.batch
        var channels = sensor.accelChannels
        if sensor.gyroOnAccelDevice, sensor.gyro != nil { channels += sensor.gyroChannels }
        sensor.rememberBuffer(dev, accel.id, channels, timestamp: accel.hasTimestamp)
        let accelStream: BufferStream
        do {
            accelStream = try BufferStream(device: dev, files: sensor.accelFiles, channels: channels,
                                           timestamp: accel.hasTimestamp ? IIOContext.inputChannel(dev, "timestamp") : nil,
                                           batch: batch)
        } catch {
            return .failure(refused(accel.id, error, enabled: channels))
        }
        guard gyroBuffered, let gyro = sensor.gyro, let gyroDev = sensor.gyroDev, let gyroFiles = sensor.gyroFiles else {
            return .success(BatchReader.Streams(accel: accelStream, gyro: nil))
        }
        sensor.rememberBuffer(gyroDev, gyro.id, sensor.gyroChannels, timestamp: gyro.hasTimestamp)
        do {
            // While still, the same time per batch as the accelerometer's: it is drained with the accelerometer's
            // batches. While the device moves, a third of it: an accelerometer sample waits for the gyroscope's
            // batch that covers it, and the two devices' batches do not start together, so with batches of the
            // same length a sample could wait a whole batch period more than its own.
            let share = still ? 1.0 : 1.0 / 3
            let gyroBatch = max(1, Int((Self.gyroRate(sensor, pace) * Double(batch) / pace.hz * share).rounded()))
            let gyroStream = try BufferStream(device: gyroDev, files: gyroFiles, channels: sensor.gyroChannels,
                                              timestamp: gyro.hasTimestamp ? IIOContext.inputChannel(gyroDev, "timestamp") : nil,
                                              batch: gyroBatch, blocking: false)
            return .success(BatchReader.Streams(accel: accelStream, gyro: gyroStream))
        } catch {
            Log.once(.warning, "\(SensorError.buffer(device: gyro.id, operation: "enable", errno: error)); rotations are decided from the accelerometer alone")
            sensor.gyro = nil
            return .success(BatchReader.Streams(accel: accelStream, gyro: nil))
        }
    }

    /// What a refused buffer means: the device went away, permission (polling still works: raw attributes are
    /// usually readable by everyone), or a refusal that polling works around.
    private func refused(_ id: String, _ e: Errno, enabled: [OpaquePointer]) -> SensorCapture.Outcome {
        if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
        let rate = sensor.rate
        if e.isPermission {
            // Enabling a buffer writes its sysfs controls and opens /dev/iio:deviceN; libiio only says EACCES:
            // name the file it was refused.
            let cause = deniedBufferFile(id, enabled).map { "\($0)" }
                ?? "\(SensorError.buffer(device: id, operation: "open", errno: e))"
            Log.once(.error, "\(cause); polling \(SensorError.sysfsPath(id, "in_accel_*_raw")) at \(rate) Hz instead of reading the buffer")
            return .fallBack
        }
        let why = e == .busy ? " (another program holds /dev/\(id): is iio-sensor-proxy running?)" : ""
        Log.once(.warning, "\(id): buffered capture unavailable: \(SensorError.buffer(device: id, operation: "enable", errno: e))\(why); polling in_accel_*_raw at \(rate) Hz instead")
        return .fallBack
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
            let e = Errno.current
            if e.isPermission || e == .readOnlyFileSystem {
                return SystemError(operation: operation, path: path, errno: e, fix: SensorError.sysfsFix(e))
            }
        }
        return nil
    }
}
