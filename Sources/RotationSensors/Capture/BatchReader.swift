import Glibc
import RotationEngine
import RotationProtocol
import RotationSystem

/// Reads the buffers of `BufferedCapture` at one pace: batches decoded into samples, each accelerometer sample
/// paired with the separate gyroscope's reading that covers it, and delivered in time order.
///
/// The separate gyroscope's readings of the last second and where they last matched (`GyroscopeReadings`) are kept
/// across changes of pace. Owned by the sensor thread.
final class BatchReader {
    /// The buffers open at one pace.
    struct Streams {
        var accel: BufferStream
        var gyro: BufferStream?
    }

    private let sensor: CapturedSensor
    /// The separate gyroscope's readings of the last second, kept across changes of pace: reopened at the still
    /// pace, its first batch takes a wake-up to fill, and until then the last readings stand in.
    private var readings = GyroscopeReadings()

    // One pace's reading (`read`).
    private var pace = BufferedCapture.Pace(hz: 1, batch: 1)
    private var still = false
    private var gyroStream: BufferStream?
    private var pending: [Sample] = []
    /// The stages of each pending sample, in the same order.
    private var pendingTiming: [DeliveryTiming] = []
    private var delivered = false
    private var lastAccel = 0.0
    private var lastGyro = 0.0
    private var silence = 0.0
    private var gyroWait = 0.0
    /// Set when a read ended because the system woke: the caller reads at the full rate, through buffers it
    /// enables again (a hub can come back from a sleep with its buffer enabled but silent until then).
    var woke = false
    /// Whether the buffers were enabled again after a wake and have delivered nothing since.
    private var reenabled = false

    init(sensor: CapturedSensor) {
        self.sensor = sensor
    }

    /// One raw read while the event is armed and the buffer is off, with the gyroscope's latest reading standing
    /// in for a separate gyroscope's, as at the still pace.
    func takeOne() -> CapturedSensor.Taken {
        sensor.takeRaw { [self] acceleration in
            if let gyro = sensor.gyro, sensor.gyroOnAccelDevice {
                if case .value(let g) = sensor.readRaw(gyro, sensor.gyroPaths) { return gyro.calibration.apply(raw: g) }
            } else if sensor.gyro != nil {
                return readings.standIn(for: acceleration)
            }
            return nil
        }
    }

    /// Reads batches until the capture ends (the outcome) or the sampling policy changes pace, or the full rate
    /// held after a motion event (`holdUntil`) ends (nil: the caller reconfigures the sensor and calls again).
    /// Accelerometer samples wait for the separate gyroscope's batch that covers them, for at most one of its
    /// batch periods and two sample periods past their own time; a separate gyroscope without a buffer
    /// (`gyroPolled`) is read once a batch.
    func read(_ streams: Streams, pace: BufferedCapture.Pace, still: Bool, first: Bool, gyroPolled: Bool,
              holdUntil: Double) -> SensorCapture.Outcome? {
        let source = sensor.source
        begin(streams, pace: pace, still: still, first: first)
        // The buffers are released when the caller lets go of `streams`: none may stay held here.
        defer { gyroStream = nil }
        while true {
            if source.stopRequested { return .stopped }
            let ready = waitForBatch(streams.accel)
            let wokeAt = MonotonicClock.now()
            if source.stopRequested { return .stopped }
            if source.woke(sensor.accel.id, resumeReadable: ready.resume) {
                woke = true
                reenabled = true
                return nil
            }
            if ready.accel {
                switch refill(streams.accel) {
                case .failure(let outcome): return outcome
                case .success(let bytes):
                    lastAccel = MonotonicClock.now()
                    delivered = true
                    if bytes > 0 { reenabled = false }
                    sensor.decodeAccel(streams.accel, bytes: bytes, hz: pace.hz, woke: wokeAt, read: lastAccel) { sample, timing in
                        pending.append(sample)
                        pendingTiming.append(timing)
                    }
                }
            }
            if let g = gyroStream, ready.gyro || still && ready.accel { drainGyro(g) }
            let now = MonotonicClock.now()
            if let outcome = checkSilence(now) { return outcome }
            if let outcome = deliverPending(now, gyroPolled: gyroPolled) { return outcome }
            readings.trim(now)
            if (source.readInterval > 0 && now >= holdUntil) != still { return nil }
        }
    }

    /// Sets up one pace's reading.
    private func begin(_ streams: Streams, pace: BufferedCapture.Pace, still: Bool, first: Bool) {
        self.pace = pace
        self.still = still
        let batchPeriod = Double(pace.batch) / pace.hz
        silence = max(sensor.source.configuration.bufferSilence, 2 * batchPeriod)
        // How long past its own time a sample waits for the gyroscope's covering reading: one gyroscope batch
        // and two sample periods of slack.
        let gyroHz = BufferedCapture.gyroRate(sensor, pace)
        gyroWait = (streams.gyro.map { Double($0.batch) / gyroHz } ?? 0) + 2 / pace.hz
        gyroStream = streams.gyro
        pending = []
        pendingTiming = []
        delivered = !first
        lastAccel = MonotonicClock.now()
        lastGyro = lastAccel
        sensor.ctx.setTimeout(milliseconds: UInt32(silence * 1000))
    }

    /// Sleeps until a buffer holds a batch, a sample has waited long enough for the gyroscope, the silence runs
    /// out, or a stop; says which buffers are readable, and whether the resume descriptor is.
    private func waitForBatch(_ accel: BufferStream) -> (accel: Bool, gyro: Bool, resume: Bool) {
        // While still, a separate gyroscope does not wake the thread: its buffer is drained with the
        // accelerometer's batches, and the samples go out without waiting for it.
        var fds = [pollfd(fd: accel.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: still ? -1 : gyroStream?.fd ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: sensor.source.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: sensor.source.resumeDescriptor, events: Int16(POLLIN), revents: 0)]
        let now = MonotonicClock.now()
        var wait = lastAccel + silence - now
        if let first = pending.first { wait = min(wait, first.time + gyroWait - now) }
        _ = poll(&fds, 4, Int32(max(0, wait * 1000).rounded(.up)))
        return (fds[0].revents != 0, fds[1].revents != 0, fds[3].revents != 0)
    }

    /// Everything waiting in the separate gyroscope's buffer, a batch at a time (the buffer does not block).
    private func drainGyro(_ g: BufferStream) {
        while true {
            switch refill(g) {
            case .failure:
                gyroStream = nil
                return
            case .success(let bytes):
                guard bytes > 0 else { return }
                lastGyro = MonotonicClock.now()
                decodeGyro(g, bytes: bytes)
            }
        }
    }

    /// A buffer silent for longer than `silence`: the accelerometer's ends the buffered capture (polling
    /// instead; if that fails too, the sensor is lost), a separate gyroscope's is dropped.
    private func checkSilence(_ now: Double) -> SensorCapture.Outcome? {
        let id = sensor.accel.id
        if now - lastAccel > silence {
            if !IIOContext.isPresent(id) { return .failed(.gone(device: id)) }
            // A silent buffer, from the start or later on (a stuck trigger, a driver that stops streaming), or
            // after a wake although enabled again (once) since.
            let what = reenabled ? "stayed silent after the system woke, though enabled again, for"
                : delivered ? "went silent for" : "delivered nothing within"
            sensor.interruptUnheard = !delivered
            Log.once(.warning, "\(id): the buffer \(what) \(Int((silence * 1000).rounded())) ms; polling in_accel_*_raw at \(sensor.rate) Hz instead")
            return .fallBack
        }
        if let g = gyroStream, now - lastGyro > silence {
            Log.once(.warning, "\(g.id): the gyroscope's buffer \(lastGyro > lastAccel - silence ? "went silent" : "delivered nothing") for \(Int((silence * 1000).rounded())) ms; rotations are decided from the accelerometer alone")
            gyroStream = nil
            sensor.gyro = nil
        }
        return nil
    }

    /// Delivers in time order: a sample once the gyroscope's readings have reached it, or once it has waited
    /// `gyroWait` for them; `.stopped` when a stop came meanwhile.
    private func deliverPending(_ now: Double, gyroPolled: Bool) -> SensorCapture.Outcome? {
        let period = 1 / pace.hz
        let separate = sensor.gyro != nil && !sensor.gyroOnAccelDevice
        let covered = gyroStream == nil || still ? Double.infinity : (readings.rates.last?.time ?? -.infinity) + period / 2
        // A separate gyroscope without a buffer of its own is read once a batch.
        let polled = separate && gyroPolled && !pending.isEmpty ? sensor.polledGyro() : nil
        var sent = 0
        defer {
            pending.removeFirst(sent)
            pendingTiming.removeFirst(sent)
        }
        for (sample, timing) in zip(pending, pendingTiming) {
            guard sample.time <= covered || now - sample.time > gyroWait else { break }
            var s = sample
            if separate {
                if gyroPolled {
                    s.angularVelocity = polled
                } else if gyroStream != nil {
                    s.angularVelocity = standIn(for: s, within: 2 * period)
                }
            }
            sensor.deliver(s, timing: timing)
            sent += 1
            if sensor.source.stopRequested { return .stopped }
        }
        return nil
    }

    /// The separate gyroscope's reading for `s`: the one nearest its time within `window`; while still, where
    /// none is (a sample can go out before the batch that covers it, and the first batch after a change of pace
    /// takes a wake-up to fill), the latest while the device is where a reading last matched
    /// (`GyroscopeReadings.standIn`): without one the engine would fall back to the accelerometer alone, and back,
    /// at every batch.
    private func standIn(for s: Sample, within window: Double) -> Vector3? {
        if let rate = readings.reading(at: s.time, acceleration: s.acceleration, within: window) { return rate }
        return still ? readings.standIn(for: s.acceleration) : nil
    }

    /// One refill: the bytes read, or how the capture ends.
    private func refill(_ stream: BufferStream) -> Result<Int, SensorCapture.Outcome> {
        let source = sensor.source
        source.setActiveBuffer(stream.buffer)
        let n = stream.refill()
        source.setActiveBuffer(nil)
        if source.stopRequested { return .failure(.stopped) }
        guard n < 0 else { return .success(n) }
        let e = Errno(rawValue: Int32(-n))
        if !IIOContext.isPresent(stream.id) { return .failure(.failed(.gone(device: stream.id))) }
        if e == .timedOut || e == .wouldBlock { return .success(0) }
        return .failure(.failed(.buffer(device: stream.id, operation: "read", errno: e)))
    }

    private func decodeGyro(_ stream: BufferStream, bytes: Int) {
        guard let gyro = sensor.gyro else { return }
        readings.append(stream, bytes: bytes, hz: BufferedCapture.gyroRate(sensor, pace), calibration: gyro.calibration)
    }
}
