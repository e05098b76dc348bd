import RotationProtocol
import RotationSystem

/// The opened accelerometer (and gyroscope) of one capture, and what every capture mode does with it: raw reads
/// (`CapturedSensor+RawReads.swift`), sampling frequencies, the reads while still (`CapturedSensor+Still.swift`),
/// and handing samples to the source.
///
/// The modes (`PolledCapture`, `BufferedCapture`, and while still `MotionEventStill` and `AxisGlanceStill`) share one,
/// so that where the device was last found, what was written to it (`settings`) and what was learned of it carry over
/// from one mode to the next. Owned by the sensor thread.
final class CapturedSensor {
    /// One raw reading of three channels.
    enum Reading {
        case value(Vector3)
        case skipped
        case failed(SensorError)
    }

    /// One sample of the accelerometer (and a polled gyroscope), not delivered yet.
    enum Taken {
        case sample(Sample)
        case skipped
        case failed(SensorError)
    }

    /// A gyroscope whose raw reads take longer than this share of a sample period is not polled: its reads
    /// would hold back the accelerometer's, which need the rest of the period.
    static let slowReadShare = 0.5

    /// How far a read must find the device from the last pose delivered to count as moved: the sampling
    /// policy's widest still band (a relative distance of 0.1, about 6°).
    static let movedDeparture = 0.1

    /// How far one axis must read from where it was for a glance (`glance`) to call the device moved: half of
    /// `movedDeparture`, as the axis glanced at is gravity's larger component, which a turn changes slowly at first (by
    /// 1 − cos): 0.05 of 1 g is 18° of a quarter turn, 0.1 would be 26°, a third of the way into a turn of 0.6 s. The
    /// noise of a still sensor is about a fifth of it. A glance that finds the device moved is followed by a full read,
    /// which `departs` judges.
    static let glanceDeparture = 0.05
    /// Seconds between reads of the base and the hinge sensor while the display sleeps on its motion event
    /// (`foldRead`): neither has a motion event that reaches the host, and a fold can turn the base while the
    /// display, the panel a hand holds still, moves too little to raise its own.
    static let foldReadInterval = 1.0
    /// Degrees of hinge a `foldRead` must find it moved before it delivers a sample.
    static let hingeDeparture = 5.0

    /// A raw read that takes longer than this slept in the driver: some power the sensor up for each raw read and
    /// wait for a sample (st_lsm6dsx, a sample period).
    static let slowRawRead = 0.01

    /// How many timed reads must all be slow for a sensor to count as slow (`quickest`).
    static let slowReadTries = 3

    /// How long the quickest of up to `slowReadTries` calls of `read` takes, stopping at the first that takes
    /// `limit` or less: what the driver takes, not a moment the thread waited for a processor or a first read
    /// faulted its pages in. A read that sleeps in the driver sleeps every time, so a slow sensor is timed
    /// `slowReadTries` times and a quick one, mostly, once.
    static func quickest(within limit: Double, _ read: () -> Void) -> Double {
        var took = Double.infinity
        for _ in 0..<slowReadTries where took > limit {
            let begin = MonotonicClock.now()
            read()
            took = min(took, MonotonicClock.now() - begin)
        }
        return took
    }

    /// How long one raw read of `path` takes.
    static func timedRead(_ path: String) -> Double {
        let begin = MonotonicClock.now()
        _ = SysfsNumber.read(path)
        return MonotonicClock.now() - begin
    }

    let source: SensorSource
    let ctx: IIOContext
    let dev: OpaquePointer
    let accel: SensorDescription
    let accelFiles: DeviceFiles
    /// The gyroscope fused, until it is found unusable.
    var gyro: SensorDescription?
    /// A polled gyroscope whose first raw read was slow, not fused until `confirmPolledGyro` has timed more.
    var gyroOnTrial: SensorDescription?
    /// The separate gyroscope's buffer beside a polled accelerometer (`PolledCapture`), nil when it is polled.
    var gyroBuffer: GyroscopeBuffer?
    let gyroDev: OpaquePointer?
    let gyroFiles: DeviceFiles?
    let accelChannels: [OpaquePointer]
    let gyroChannels: [OpaquePointer]
    let accelPaths: [String]
    let gyroPaths: [String]
    /// A convertible's base accelerometer, read beside each sample for the posture; nil without one.
    let base: BaseSensor?
    /// A convertible's hinge sensor, read beside each sample for the posture before the base; nil without one.
    let hinge: HingeSensor?
    /// Every attribute written, put back when the capture ends.
    let settings: SensorSettings
    /// The time of the last sample delivered.
    private(set) var lastTime = -Double.infinity
    /// The acceleration of the last sample delivered: where the device was when the event was armed.
    private(set) var lastAcceleration: Vector3?
    /// The base's and the hinge's readings last delivered, to which `foldRead` compares.
    private(set) var lastBase: Vector3?
    private(set) var lastHinge: Double?
    /// The raw counts of the accelerometer's last reading.
    var lastRaw: Vector3?
    /// When the next raw read was due, set by a mode that waited for it (`DeliveryTiming.measured`).
    var due: Double?
    /// The stages of the last raw read (`takeRaw`), for its sample's delivery.
    var rawTiming = DeliveryTiming(at: 0)
    /// The accelerometer's sampling frequency while it is polled, when raised because its raw reads sleep in the
    /// driver for a few sample periods (`PolledCapture.quickenRawReads`); nil when it is the chosen one.
    var polledHz: Double?
    /// Whether the accelerometer's buffer delivered nothing at all before the capture fell back to polling: its
    /// interrupt line does not reach the host, and the motion event would come on that line.
    var interruptUnheard = false

    init(source: SensorSource, context: IIOContext, device: OpaquePointer, accelerometer: SensorDescription,
         gyroscope: SensorDescription?, gyroscopeDevice: OpaquePointer?, base: BaseSensor?, hinge: HingeSensor?,
         settings: SensorSettings) {
        self.source = source
        self.base = base
        self.hinge = hinge
        self.ctx = context
        self.dev = device
        self.accel = accelerometer
        self.accelFiles = DeviceFiles(id: accelerometer.id)
        self.gyro = gyroscopeDevice == nil ? nil : gyroscope
        self.gyroDev = gyroscopeDevice
        self.gyroFiles = gyroscope.flatMap { g in g.id == accelerometer.id ? nil : DeviceFiles(id: g.id) }
        self.settings = settings
        let accelChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(device, "accel_\($0)") }
        var gyroChannels: [OpaquePointer] = []
        if let gd = gyroscopeDevice {
            gyroChannels = ["x", "y", "z"].compactMap { IIOContext.inputChannel(gd, "anglvel_\($0)") }
        }
        self.accelChannels = accelChannels
        self.gyroChannels = gyroChannels
        accelPaths = CapturedSensor.rawPaths(accelerometer.id, "accel", accelChannels)
        gyroPaths = gyroscope.map { CapturedSensor.rawPaths($0.id, "anglvel", gyroChannels) } ?? []
    }

    /// The configured sample rate.
    var rate: Double { source.configuration.rate }
    /// Whether the gyroscope's channels are the accelerometer's device's (an IMU).
    var gyroOnAccelDevice: Bool { gyro?.id == accel.id }
    /// The sensor, as what is known of its events across captures is filed: "iio:device0 BMA250E".
    var findingsKey: String { "\(accel.id) \(accel.name)" }

    // MARK: Sampling frequencies

    /// Sets the accelerometer's sampling frequency (and a rate its driver requires to match) and the separate
    /// gyroscope's to the choices nearest `hz` from above.
    func setFrequencies(_ hz: Double) {
        if let plan = accel.frequency { setAccelFrequency(plan.value(atLeast: hz)) }
        if let gyro, let gyroDev, !gyroOnAccelDevice, let plan = gyro.frequency {
            settings.write(gyroDev, gyro.id, plan.attribute, FrequencyPlan.text(plan.value(atLeast: hz)),
                           purpose: "keeping the driver's sampling frequency")
        }
    }

    /// Writes `hz`, one of the driver's choices, as the accelerometer's sampling frequency (and to the rates its
    /// driver requires to match); false when the driver refused it.
    @discardableResult
    func setAccelFrequency(_ hz: Double) -> Bool {
        guard let plan = accel.frequency else { return false }
        let text = FrequencyPlan.text(hz)
        var taken = true
        for file in [plan.attribute] + plan.linked {
            taken = settings.write(dev, accel.id, file, text, purpose: "keeping the driver's sampling frequency") && taken
        }
        return taken
    }

    /// Puts the sampling frequencies back to the full rate's after watching for motion, the accelerometer's to
    /// the one it is polled at (`polledHz`).
    func resumeFrequencies() {
        setFrequencies(accel.frequency?.chosen ?? rate)
        if let polledHz { setAccelFrequency(polledHz) }
    }

    /// Records the files libiio writes when it enables a buffer, before it does: the scan elements it enables and
    /// the enable itself, so that they are put back, after a crash too (`SettingsJournal`).
    func rememberBuffer(_ device: OpaquePointer, _ id: String, _ channels: [OpaquePointer], timestamp: Bool) {
        for ch in channels { settings.remember(device, id, "scan_elements/in_\(IIOContext.channelID(ch))_en") }
        if timestamp { settings.remember(device, id, "scan_elements/in_timestamp_en") }
        settings.remember(device, id, "buffer/enable")
    }

    /// Adds the base's and the hinge sensor's readings due at `now` to `sample` (each at most ten times a second),
    /// and the switches' states (every sample: the events pending are read, and a state is kept between them).
    func readFold(into sample: inout Sample, at now: Double) {
        sample.base = base?.reading(at: now)
        sample.hinge = hinge?.reading(at: now)
        if let switches = source.switches { (sample.tabletMode, sample.lidClosed) = switches.read() }
    }

    // MARK: Delivery

    /// The accelerometer's samples (with the angular velocity of a gyroscope on the same device) in the last
    /// refill of `stream`, `bytes` bytes at `hz`, each with its stages: the thread woke at `woke`, the read
    /// returned at `read`, and the batch was readable at its last scan's time. In order, not delivered.
    func decodeAccel(_ stream: BufferStream, bytes: Int, hz: Double, woke: Double, read: Double,
                     _ body: (Sample, DeliveryTiming) -> Void) {
        let times = stream.times(bytes: bytes, hz: hz, now: MonotonicClock.now())
        var timing = DeliveryTiming(at: read)
        timing.readable = times.last ?? read
        timing.woke = woke
        let imu = gyroOnAccelDevice ? gyro : nil
        let calibration = accel.calibration
        stream.forEachScan(bytes: bytes) { i, _, v, _ in
            let raw = Vector3(v[0], v[1], v[2])
            lastRaw = raw
            var sample = Sample(time: nextTime(times[i]), acceleration: calibration.apply(raw: raw))
            if let imu, v.count >= 6 { sample.angularVelocity = imu.calibration.apply(raw: Vector3(v[3], v[4], v[5])) }
            // The fold once a batch, with its last scan.
            if i == times.count - 1 { readFold(into: &sample, at: read) }
            timing.measured = sample.time
            body(sample, timing)
        }
    }

    /// Hands one sample to the source, remembering where it found the device; `timing` gives its stages, nil for
    /// the last raw read's.
    func deliver(_ sample: Sample, timing: DeliveryTiming? = nil) {
        lastTime = max(lastTime, sample.time)
        lastAcceleration = sample.acceleration
        if let b = sample.base { lastBase = b }
        if let h = sample.hinge { lastHinge = h }
        source.deliver(sample, timing: timing ?? rawTiming)
    }

    /// A buffered sample's time, never before the last one taken; becomes the last one.
    func nextTime(_ time: Double) -> Double {
        lastTime = max(time, lastTime)
        return lastTime
    }
}
