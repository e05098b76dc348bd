import Glibc
import CIIO
import RotationEngine

/// One capture from an opened accelerometer (and gyroscope) until it stops, fails or the device goes away.
///
/// Runs on the `SensorSource` thread and owns nothing beyond that run: the context belongs to the session.
final class SensorCapture {
    /// How a capture (or a discovery) ended.
    enum Outcome {
        /// `stop()` was called.
        case stopped
        /// No usable sensor; the message says what was looked for.
        case absent(String)
        /// The sensor failed or went away.
        case failed(SensorError)
        /// Buffered capture is not possible; poll instead.
        case fallBack
    }

    private let source: SensorSource
    private let ctx: IIOContext
    private let dev: OpaquePointer
    private let accel: SensorDescription
    private let gyro: SensorDescription?
    private let gyroDev: OpaquePointer?
    private let accelChannels: [OpaquePointer]
    private let gyroChannels: [OpaquePointer]
    private let gyroInScan: Bool
    private let accelPaths: [String]
    private let gyroPaths: [String]
    private var lastTime = -Double.infinity

    init(source: SensorSource, context: IIOContext, device: OpaquePointer, accelerometer: SensorDescription,
         gyroscope: SensorDescription?, gyroscopeDevice: OpaquePointer?) {
        self.source = source
        self.ctx = context
        self.dev = device
        self.accel = accelerometer
        self.gyro = gyroscopeDevice == nil ? nil : gyroscope
        self.gyroDev = gyroscopeDevice
        let accelChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(device, "accel_\($0)") }
        var gyroChannels: [OpaquePointer] = []
        if let gd = gyroscopeDevice {
            gyroChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(gd, "anglvel_\($0)") }
        }
        self.accelChannels = accelChannels
        self.gyroChannels = gyroChannels
        accelPaths = SensorCapture.rawPaths(accelerometer.id, "accel", accelChannels)
        gyroPaths = gyroscope.map { SensorCapture.rawPaths($0.id, "anglvel", gyroChannels) } ?? []
        gyroInScan = gyroscope?.id == accelerometer.id && gyroChannels.allSatisfy { iio_channel_is_scan_element($0) }
    }

    private var rate: Double { source.configuration.rate }

    func run() -> Outcome {
        // Whatever the capture changes on the device, it puts back as it found it when it ends, however it ends:
        // a part must never be left at a rate or batch size nobody asked it for.
        var saved = [savedFrequency(accel, dev, accelChannels)]
        if let gyro, let gyroDev, gyro.id != accel.id { saved.append(savedFrequency(gyro, gyroDev, gyroChannels)) }
        if accel.capture == .buffered, case .success(let text) = IIOContext.readBuffer(dev, "watermark") {
            let dev = self.dev
            let value = String(text.trimmedSysfs)
            saved.append { _ = IIOContext.writeBuffer(dev, "watermark", value) }
        }
        defer { for restore in saved { restore() } }
        if let plan = accel.frequency { setFrequency(accel, dev, accelChannels, plan.chosen) }
        if let gyro, let gyroDev, gyro.id != accel.id, let plan = gyro.frequency {
            setFrequency(gyro, gyroDev, gyroChannels, plan.chosen)
        }
        if accel.capture == .buffered {
            let outcome = runBuffered()
            if case .fallBack = outcome {} else { return outcome }
        }
        return runPolled()
    }

    /// Reads the sensor's sampling frequency as the capture finds it; returns what writes it back.
    private func savedFrequency(_ sensor: SensorDescription, _ dev: OpaquePointer, _ channels: [OpaquePointer]) -> () -> Void {
        guard let plan = sensor.frequency else { return {} }
        let device = plan.attribute == "sampling_frequency"
        let read = device ? IIOContext.readDevice(dev, "sampling_frequency") : IIOContext.readChannel(channels[0], "sampling_frequency")
        guard case .success(let text) = read else { return {} }
        let value = String(text.trimmedSysfs)
        let channel = channels[0]
        return {
            _ = device ? IIOContext.writeDevice(dev, "sampling_frequency", value)
                : IIOContext.writeChannel(channel, "sampling_frequency", value)
        }
    }

    /// Writes `hz` to the sensor's sampling frequency attribute; a refusal is logged once and the driver's
    /// frequency kept.
    @discardableResult
    private func setFrequency(_ sensor: SensorDescription, _ dev: OpaquePointer, _ channels: [OpaquePointer], _ hz: Double) -> Bool {
        guard let plan = sensor.frequency else { return false }
        let value = hz == hz.rounded() ? String(Int(hz)) : String(hz)
        let failure = plan.attribute == "sampling_frequency"
            ? IIOContext.writeDevice(dev, "sampling_frequency", value)
            : IIOContext.writeChannel(channels[0], "sampling_frequency", value)
        if let failure {
            let err = SystemError(operation: "write \(value) to", path: SensorError.sysfsPath(sensor.id, plan.attribute),
                                  errno: failure.code, fix: SensorError.sysfsFix(failure.code))
            SensorLog.once(.warning, "\(err); keeping the driver's sampling frequency")
            return false
        }
        return true
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
                let err = SystemError(operation: "read", path: path, errno: e, fix: SensorError.sysfsFix(e))
                if e == EACCES || e == EPERM { return .failed(.io(err)) }
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

    /// The separate gyroscope's current reading, or nil.
    private func polledGyro() -> Vector3? {
        guard let gyro, !gyroChannels.isEmpty else { return nil }
        if case .value(let raw) = readRaw(gyro, gyroPaths) { return gyro.calibration.apply(raw: raw) }
        return nil
    }

    private func runPolled() -> Outcome {
        let full = 1 / rate
        var next = MonotonicClock.now()
        var slow = false
        while true {
            if source.stopRequested { return .stopped }
            switch readRaw(accel, accelPaths) {
            case .failed(let error):
                return .failed(error)
            case .skipped:
                break
            case .value(let raw):
                let now = MonotonicClock.now()
                var sample = Sample(time: max(now, lastTime), acceleration: accel.calibration.apply(raw: raw))
                sample.angularVelocity = polledGyro()
                lastTime = sample.time
                source.deliver(sample)
            }
            // The pace the sampling policy asked for after this sample: one read per interval while still.
            let still = source.readInterval
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

    // MARK: Buffered

    private func runBuffered() -> Outcome {
        let id = accel.id
        for ch in IIOContext.channels(of: dev) where iio_channel_is_scan_element(ch) { iio_channel_disable(ch) }
        var scanChannels = accelChannels
        if gyroInScan { scanChannels += gyroChannels }
        for ch in scanChannels { iio_channel_enable(ch) }
        let timestamp = accel.hasTimestamp ? IIOContext.inputChannel(dev, "timestamp") : nil
        if let timestamp { iio_channel_enable(timestamp) }

        if let name = accel.trigger,
           let trig = ctx.devices.first(where: { iio_device_is_trigger($0) && IIOContext.name(of: $0) == name }) {
            let rc = iio_device_set_trigger(dev, trig)
            if rc < 0 {
                let err = SystemError(operation: "set trigger \(name) in", path: SensorError.sysfsPath(id, "trigger/current_trigger"),
                                      errno: Int32(-rc), fix: SensorError.sysfsFix(Int32(-rc)))
                SensorLog.once(.warning, "\(err); capturing without it")
            }
        }
        var first = true
        while true {
            let still = source.readInterval > 0
            // At the full rate, the configured frequency and FIFO batch; while still, the lowest frequency the
            // part offers at or above the policy's read rate, batched to wake about once a stillWakeInterval.
            let pace = still ? stillPace() : nil
            let hz = pace?.hz ?? accel.frequency?.chosen ?? rate
            let batch = pace?.batch ?? accel.batch
            if let plan = accel.frequency, pace != nil || !first { setFrequency(accel, dev, accelChannels, pace?.hz ?? plan.chosen) }
            if batch > 1 || !first, let e = IIOContext.writeBuffer(dev, "watermark", String(batch)) {
                let err = SystemError(operation: "write \(batch) to", path: SensorError.sysfsPath(id, "buffer/watermark"),
                                      errno: e.code, fix: SensorError.sysfsFix(e.code))
                SensorLog.once(.warning, "\(err); the kernel will wake rotationd for every sample")
            }
            if !first {
                SensorLog.write(.debug, still ? "\(id): the device is still: reading it at \(hz) Hz, \(batch) samples per wake-up"
                                              : "\(id): the device moves: reading it at \(hz) Hz, \(batch) samples per wake-up")
            }
            switch readBuffer(batch: batch, hz: hz, still: still, scanChannels: scanChannels, timestamp: timestamp, first: first) {
            case .some(let outcome):
                return outcome
            case .none:
                first = false
            }
        }
    }

    /// The sampling frequency and batch for a still device: nil when the policy asks for no slow pace.
    private func stillPace() -> (hz: Double, batch: Int)? {
        let interval = source.readInterval
        guard interval > 0 else { return nil }
        let wanted = 1 / interval
        var hz = accel.frequency?.chosen ?? rate
        if let plan = accel.frequency, let lowest = plan.available.first(where: { $0 >= wanted }) ?? plan.available.last {
            hz = min(hz, lowest)
        }
        let batch = max(1, Int((hz * source.configuration.stillWakeInterval).rounded()))
        return (hz, batch)
    }

    /// Reads one buffer of `batch` scans at a time until the capture ends (the outcome) or the sampling
    /// policy changes pace (nil: the caller reconfigures the part and calls again).
    private func readBuffer(batch: Int, hz: Double, still: Bool, scanChannels: [OpaquePointer], timestamp: OpaquePointer?,
                            first: Bool) -> Outcome? {
        let id = accel.id
        // libiio prints "WARNING: High-speed mode not enabled" on standard error here on mainline kernels: it
        // only means the buffer is read with read() rather than mmap().
        let created = iio_device_create_buffer(dev, batch, false)
        guard let buf = created else {
            let e = errno
            if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
            if e == EACCES || e == EPERM {
                // Enabling a buffer writes its sysfs controls and opens /dev/iio:deviceN, both root's only;
                // the raw attributes are usually readable by everyone, so polling still works. libiio only says
                // EACCES: name the file it was refused.
                let cause = deniedBufferFile(timestamp.map { scanChannels + [$0] } ?? scanChannels).map { "\($0)" }
                    ?? "\(SensorError.buffer(device: id, operation: "open", errno: e))"
                SensorLog.once(.error, "\(cause); polling \(SensorError.sysfsPath(id, "in_accel_*_raw")) at \(rate) Hz instead of reading the buffer")
                return .fallBack
            }
            SensorLog.once(.warning, "\(id): buffered capture unavailable (\(String(cString: strerror(e)))); polling in_accel_*_raw at \(rate) Hz instead")
            return .fallBack
        }
        source.setActiveBuffer(buf)
        defer {
            source.setActiveBuffer(nil)
            iio_buffer_destroy(buf)
        }
        let batchPeriod = Double(batch) / hz
        let silence = max(source.configuration.bufferSilence, 2 * batchPeriod)
        // Where each channel's first value sits from the start of the data: fixed for the buffer's life, so
        // worked out once; the start itself may move between refills (libiio's mmap mode swaps blocks).
        let base = Int(bitPattern: iio_buffer_start(buf))
        let offsets = scanChannels.map { Int(bitPattern: iio_buffer_first(buf, $0)) - base }
        let tsOffset = timestamp.map { Int(bitPattern: iio_buffer_first(buf, $0)) - base }
        ctx.setTimeout(milliseconds: UInt32(silence * 1000))
        var delivered = !first
        while true {
            if source.stopRequested { return .stopped }
            let n = iio_buffer_refill(buf)
            if source.stopRequested { return .stopped }
            if n < 0 {
                let e = Int32(-n)
                if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
                if e == ETIMEDOUT || e == EAGAIN {
                    // A silent buffer, from the start or later on (a stuck trigger, a driver that stops
                    // streaming): poll the raw attributes instead; if those fail too, the sensor is lost.
                    let what = delivered ? "went silent for" : "delivered nothing within"
                    SensorLog.once(.warning, "\(id): the buffer \(what) \(Int((silence * 1000).rounded())) ms; polling in_accel_*_raw at \(rate) Hz instead")
                    return .fallBack
                }
                return .failed(.buffer(device: id, operation: "read", errno: e))
            }
            delivered = true
            decode(buf, bytes: n, scanChannels: scanChannels, offsets: offsets, timestamp: timestamp, tsOffset: tsOffset, hz: hz)
            if (source.readInterval > 0) != still { return nil }
        }
    }

    /// The first file that opening a buffer needs and this process may not use, in the order libiio uses them:
    /// `buffer/enable` and `buffer/length` (written), the device node (read and written), then each enabled
    /// channel's `scan_elements/in_*_en` (written). Nil when none is refused.
    private func deniedBufferFile(_ enabled: [OpaquePointer]) -> SystemError? {
        let id = accel.id
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

    /// One channel's value at `ptr`, converted from its scan format to a host integer.
    private static func value(_ ch: OpaquePointer, _ ptr: UnsafeRawPointer) -> Double {
        let fmt = iio_channel_get_data_format(ch)!.pointee
        var out: UInt64 = 0
        withUnsafeMutableBytes(of: &out) { iio_channel_convert(ch, $0.baseAddress, ptr) }
        switch (fmt.length, fmt.is_signed) {
        case (8, true): return Double(Int8(truncatingIfNeeded: out))
        case (8, false): return Double(UInt8(truncatingIfNeeded: out))
        case (16, true): return Double(Int16(truncatingIfNeeded: out))
        case (16, false): return Double(UInt16(truncatingIfNeeded: out))
        case (32, true): return Double(Int32(truncatingIfNeeded: out))
        case (32, false): return Double(UInt32(truncatingIfNeeded: out))
        case (_, true): return Double(Int64(bitPattern: out))
        default: return Double(out)
        }
    }

    private static func timestampValue(_ ch: OpaquePointer, _ ptr: UnsafeRawPointer) -> Int64 {
        var out: UInt64 = 0
        withUnsafeMutableBytes(of: &out) { iio_channel_convert(ch, $0.baseAddress, ptr) }
        return Int64(bitPattern: out)
    }

    private func decode(_ buf: OpaquePointer, bytes: Int, scanChannels: [OpaquePointer], offsets: [Int],
                        timestamp: OpaquePointer?, tsOffset: Int?, hz: Double) {
        let step = iio_buffer_step(buf)
        guard step > 0, let data = iio_buffer_start(buf).map(UnsafeRawPointer.init) else { return }
        let count = bytes / step
        guard count > 0 else { return }
        let tsStart = tsOffset.map { data + $0 }
        let now = MonotonicClock.now()
        let lastStamp = tsStart.map { SensorCapture.timestampValue(timestamp!, $0 + (count - 1) * step) }
        let separateGyro = gyroInScan ? nil : polledGyro()
        for i in 0..<count {
            let off = i * step
            let a = Vector3(SensorCapture.value(scanChannels[0], data + offsets[0] + off),
                            SensorCapture.value(scanChannels[1], data + offsets[1] + off),
                            SensorCapture.value(scanChannels[2], data + offsets[2] + off))
            var time = now - Double(count - 1 - i) / hz
            if let tsStart, let lastStamp {
                let age = Double(lastStamp - SensorCapture.timestampValue(timestamp!, tsStart + off)) * 1e-9
                if age >= 0 && age < 10 { time = now - age }
            }
            time = max(time, lastTime)
            lastTime = time
            var sample = Sample(time: time, acceleration: accel.calibration.apply(raw: a))
            if gyroInScan, let gyro {
                let g = Vector3(SensorCapture.value(scanChannels[3], data + offsets[3] + off),
                                SensorCapture.value(scanChannels[4], data + offsets[4] + off),
                                SensorCapture.value(scanChannels[5], data + offsets[5] + off))
                sample.angularVelocity = gyro.calibration.apply(raw: g)
            } else {
                sample.angularVelocity = separateGyro
            }
            source.deliver(sample)
            if source.stopRequested { return }
        }
    }
}
