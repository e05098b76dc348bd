import Glibc
import RotationProtocol
import RotationSystem

/// A separate gyroscope read through its own buffer beside a polled accelerometer (`PolledCapture`).
///
/// st_lsm6dsx registers its accelerometer and gyroscope as two devices, and a raw read of either sleeps three to
/// four sample periods in the driver (`st_lsm6dsx_read_oneshot`): far too slow to poll the gyroscope beside
/// the accelerometer's samples, while through its buffer a reading costs nothing. The accelerometer stays polled,
/// for the desktop's readers of it; nobody else reads the gyroscope (`CapturePlan`). The buffer runs only while the
/// device moves: `open` when polling goes to the full rate, `close` when it goes still. Each polled sample drains
/// what waits in it, without blocking, and takes the reading nearest its time (`GyroscopeReadings`). Owned by the
/// sensor thread.
final class GyroscopeBuffer {
    private let sensor: CapturedSensor
    private let gyro: SensorDescription
    private let device: OpaquePointer
    private let files: DeviceFiles
    private var stream: BufferStream?
    private var readings = GyroscopeReadings()
    /// The device's clock offset, kept from one opening to the next.
    private var clockOffset: Double?
    /// When the buffer was last enabled, and when it last delivered (CLOCK_MONOTONIC, s).
    private var opened = 0.0
    private var lastScan = -Double.infinity

    /// The buffer of the sensor's separate gyroscope, where its plan holds one and no other program runs it; nil
    /// otherwise (the gyroscope is then polled where its reads are fast enough).
    init?(sensor: CapturedSensor) {
        guard let gyro = sensor.gyro, !sensor.gyroOnAccelDevice, let device = sensor.gyroDev, let files = sensor.gyroFiles,
              gyro.plan.mode == .buffered, !SensorSettings.bufferRuns(gyro.id) else { return nil }
        self.sensor = sensor
        self.gyro = gyro
        self.device = device
        self.files = files
        sensor.settings.remember(device, gyro.id, "buffer/length")
        sensor.settings.remember(device, gyro.id, "buffer/watermark")
    }

    /// Whether the buffer runs now.
    var isOpen: Bool { stream != nil }

    /// The gyroscope's sampling frequency, as set for the configured rate.
    private var hz: Double { gyro.frequency?.value(atLeast: sensor.rate) ?? sensor.rate }

    /// Enables the buffer, one scan per interrupt (a sample waits for no batch); false when the driver refused it
    /// (said once: another program holds the node, EBUSY), and the gyroscope is then polled from this capture on.
    @discardableResult
    func open() -> Bool {
        guard stream == nil, sensor.gyro != nil else { return stream != nil }
        if let trigger = gyro.trigger, files.read("trigger/current_trigger") != trigger,
           !sensor.settings.write(device, gyro.id, "trigger/current_trigger", trigger, purpose: "so its buffer cannot run; polling it instead") {
            return false
        }
        sensor.rememberBuffer(device, gyro.id, sensor.gyroChannels, timestamp: gyro.hasTimestamp)
        do {
            let s = try BufferStream(device: device, files: files, channels: sensor.gyroChannels,
                                     timestamp: gyro.hasTimestamp ? IIOContext.inputChannel(device, "timestamp") : nil,
                                     batch: 1, blocking: false)
            s.clockOffset = clockOffset
            stream = s
            opened = MonotonicClock.now()
            return true
        } catch {
            let why = error == .busy ? " (another program holds /dev/\(gyro.id))" : ""
            Log.once(.info, "\(SensorError.buffer(device: gyro.id, operation: "enable", errno: error))\(why); reading its raw attributes instead where they are fast enough")
            return false
        }
    }

    /// Disables the buffer; the readings stay, to stand in while the device has not moved.
    func close() {
        clockOffset = stream?.clockOffset ?? clockOffset
        stream = nil
    }

    /// The reading for an accelerometer sample read now: the nearest scan within two sample periods, else the
    /// latest while the device has not moved since one last matched (`GyroscopeReadings.standIn`); nil when
    /// neither. A buffer that stays silent for `bufferSilence` after it was enabled, or fails, loses the
    /// gyroscope for the capture (said once).
    func reading(acceleration: Vector3) -> Vector3? {
        let now = MonotonicClock.now()
        if let stream { drain(stream, now) }
        readings.trim(now)
        let window = 2 * max(1 / sensor.rate, 1 / hz)
        return readings.reading(at: now, acceleration: acceleration, within: window) ?? readings.standIn(for: acceleration)
    }

    /// Everything waiting in the buffer, a refill at a time.
    private func drain(_ stream: BufferStream, _ now: Double) {
        while true {
            let n = stream.refill()
            if n == -Int(EAGAIN) || n == -Int(ETIMEDOUT) || n == 0 { break }
            guard n > 0 else {
                drop("\(SensorError.buffer(device: gyro.id, operation: "read", errno: Errno(rawValue: Int32(-n))))")
                return
            }
            lastScan = now
            readings.append(stream, bytes: n, hz: hz, calibration: gyro.calibration)
        }
        let silence = sensor.source.configuration.bufferSilence
        if now - max(opened, lastScan) > silence {
            drop("\(gyro.id): the gyroscope's buffer \(lastScan > opened ? "went silent" : "delivered nothing") for \(Int((silence * 1000).rounded())) ms")
        }
    }

    /// Gives the gyroscope up for the capture: rotations are decided from the accelerometer alone.
    private func drop(_ why: String) {
        Log.once(.warning, "\(why); rotations are decided from the accelerometer alone")
        stream = nil
        sensor.gyro = nil
    }
}
