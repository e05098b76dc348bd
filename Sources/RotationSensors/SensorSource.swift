import Glibc
import CIIO
import RotationProtocol
import RotationSystem
import Synchronization

/// Live input from the display accelerometer (and a gyroscope beside it), delivered as calibrated samples.
///
/// `start(onSample:onStatus:)` starts one thread of its own that finds the sensor, captures from it (buffered
/// or polled), and rediscovers it after it goes away. `stop()` ends that thread. While stopped, nothing runs:
/// no thread, no timer, no open device.
///
/// Threading contract:
/// - Both callbacks run on the source's thread, one at a time, in order; never concurrently with each other.
///   Keep them short: while a callback runs, no sample is read.
/// - `onSample` gets samples with non-decreasing `time` in monotonic seconds (`CLOCK_MONOTONIC`), acceleration
///   in m/s² and angular velocity in rad/s, both in the device frame of `Sample`.
/// - `onStatus` is called only when the status changes, with the monotonic time of the change: `.ok` just
///   before the first sample of a capture (with that sample's time), `.lost` when a sensor that delivered
///   samples fails or goes away, `.none` when no usable sensor has been found yet.
/// - `start` and `stop` may be called from any thread, including from inside a callback. `stop()` returns once
///   the thread has ended, except when called from a callback, where it returns at once and the thread ends as
///   soon as the callback returns; a `start` from the same callback keeps that thread going with the new
///   callbacks, which get the status afresh. After `stop()`, no callback runs until the next `start`.
public final class SensorSource: @unchecked Sendable {
    /// The configuration given at creation.
    public let configuration: Configuration

    private struct Control {
        var running = false
        var stopRequested = false
        var buffer: UInt = 0
        /// The thread, once `start` has it; nil before.
        var thread: SystemThread?
        var sensor: SensorDescription?
        var gyroscope: SensorDescription?
        /// Stopped from its own callback: the thread detaches itself as it ends, as nobody joins it.
        var stoppedFromCallback = false
    }

    private let control = Mutex<Control>(Control())
    /// The bit pattern of the read interval the sampling policy asks for; 0 for the full rate.
    private let readIntervalBits = Atomic<UInt64>(0)
    /// Readable once `stop()` is called.
    private let stopPipe = WakePipe()
    // Set by `start` before the thread exists and read only by that thread.
    private var onSample: (Sample) -> Void = { _ in }
    private var onStatus: (SensorStatus, Double) -> Void = { _, _ in }
    /// When the sample `onSample` has now passed each stage of the capture; read it only inside `onSample`, on
    /// the source's thread.
    public private(set) var delivery = DeliveryTiming(at: 0)
    // Touched only by the source's thread.
    private var reported: SensorStatus?
    private var hadSensor = false
    /// What was said about the captures' ends, so that a problem is logged once.
    private var sessionLog = SessionLog()
    /// Whether the latest capture failed before its first sample: the retry does not announce the sensor again.
    private var retrying = false
    /// Whether the current capture has delivered a sample.
    private var delivered = false
    /// What the captures learned of each sensor, kept across captures. Touched only by the source's thread.
    var findings = SensorFindings()
    /// Learns that the system slept; made when the thread starts.
    private var resumeDetector: ResumeDetector?
    /// Whether the next sample delivered follows a sleep (`Sample.followsGap`).
    private var gapPending = false
    private var monitor: UDevMonitor?

    /// Creates a stopped source.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit { stop() }

    /// Whether the source's thread is running.
    public var isRunning: Bool { control.withLock { $0.running && !$0.stopRequested } }

    /// The display accelerometer of the current or latest capture; nil before the first one. Set just before
    /// `.ok` is reported for it, so an `onStatus(.ok)` callback may read it.
    public var sensor: SensorDescription? { control.withLock { $0.sensor } }

    /// The gyroscope fused in the current or latest capture; nil before the first one or without a gyroscope.
    public var gyroscope: SensorDescription? { control.withLock { $0.gyroscope } }

    /// The display accelerometer of the current or latest capture, as "iio:device0 (accel_3d)"; nil before
    /// the first one.
    public var device: String? { sensor.map { "\($0.id) (\($0.name))" } }

    /// Asks for one read every `seconds` (the sampling policy's slow pace while the device is still), or for the
    /// full rate with 0. Meant to be called from `onSample`, right after the sample that changed the pace, but
    /// safe from any thread. A polled sensor is then read at that interval; a buffered sensor is slowed down to the
    /// lowest sampling frequency it offers at or above 1/`seconds` and batched to wake about once every
    /// `stillWakeInterval`; both go back to the configured rate at once when it is 0 again.
    public func setReadInterval(_ seconds: Double) {
        let value = seconds.isFinite && seconds > 0 ? seconds : 0
        readIntervalBits.store(value.bitPattern, ordering: .relaxed)
    }

    /// The read interval last asked for; 0 for the full rate.
    var readInterval: Double { Double(bitPattern: readIntervalBits.load(ordering: .relaxed)) }

    /// Starts capturing on a new thread; does nothing if already running.
    ///
    /// - Parameters:
    ///   - onSample: called with every calibrated sample.
    ///   - onStatus: called when the sensor status changes, with the monotonic time of the change (for `.ok`,
    ///     the time of the first sample that follows).
    public func start(onSample: @escaping @Sendable (Sample) -> Void,
                      onStatus: @escaping @Sendable (SensorStatus, Double) -> Void) {
        while true {
            let busy = control.withLock { c -> Bool? in
                if c.running && !c.stopRequested { return nil }
                return c.running
            }
            guard let busy else { return }
            if !busy { break }
            if control.withLock({ $0.thread?.isCurrent == true }) {
                // Restarted from a callback right after stopping: the same thread goes on with the new
                // callbacks, and reports the status afresh to them.
                self.onSample = onSample
                self.onStatus = onStatus
                reported = nil
                stopPipe.drain()
                control.withLock {
                    $0.stopRequested = false
                    $0.stoppedFromCallback = false
                }
                return
            }
            MonotonicClock.sleep(0.002)
        }
        stopPipe.drain()
        self.onSample = onSample
        self.onStatus = onStatus
        readIntervalBits.store(0, ordering: .relaxed)
        reported = nil
        hadSensor = false
        sessionLog = SessionLog()
        retrying = false
        control.withLock {
            $0.running = true
            $0.stopRequested = false
            $0.thread = nil
        }
        do {
            let thread = try SystemThread(named: "rotationd-iio") { self.threadMain() }
            control.withLock { $0.thread = thread }
        } catch {
            control.withLock { $0.running = false }
            Log.write(.error, "cannot start the sensor thread: \(error)")
        }
    }

    /// Stops capturing and closes the device; see the type's threading contract.
    public func stop() {
        // `start` records the thread as soon as it exists, so a stop waits the moment it takes for it to be
        // known (the thread itself, from a callback, too).
        var state: (thread: SystemThread?, running: Bool)
        while true {
            state = control.withLock { c -> (SystemThread?, Bool) in
                guard c.running, !c.stopRequested else { return (c.thread, false) }
                guard let thread = c.thread else { return (nil, true) }
                c.stopRequested = true
                c.stoppedFromCallback = thread.isCurrent
                if c.buffer != 0, let buf = OpaquePointer(bitPattern: c.buffer) { iio_buffer_cancel(buf) }
                return (thread, true)
            }
            if !state.running || state.thread != nil { break }
            sched_yield()
        }
        guard state.running, let thread = state.thread else { return }
        stopPipe.signal()
        if !thread.isCurrent { thread.join() }
    }

    // MARK: - The source's thread

    var stopRequested: Bool { control.withLock { $0.stopRequested } }

    /// Becomes readable when `stop()` is called: a capture that waits in `poll()` includes it.
    var wakeDescriptor: Int32 { stopPipe.descriptor }

    /// Publishes the buffer that `stop()` must cancel, or clears it before the buffer is destroyed.
    func setActiveBuffer(_ buf: OpaquePointer?) {
        control.withLock { $0.buffer = buf.map { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0))) } ?? 0 }
    }

    /// How a wait ended.
    enum WaitEnd {
        /// The deadline came.
        case due
        /// `stop()` was called.
        case stopped
        /// The system woke from a sleep (`woke()` said so): read the sensor at once.
        case woke
        /// A tablet-mode or lid switch changed (`switchDescriptor`): read the sensor once for the posture.
        case switched
    }

    /// The switches of the capture running (`InputSwitches`), nil between captures. Owned by the sensor thread.
    var switches: InputSwitches?

    /// Readable when a switch has changed (`InputSwitches.descriptor`), to poll beside a capture's own while
    /// still; −1 without one.
    var switchDescriptor: Int32 { switches?.descriptor ?? -1 }

    /// The descriptor that becomes readable when the system resumes (`ResumeDetector`), to poll beside a capture's
    /// own; −1 without one.
    var resumeDescriptor: Int32 { resumeDetector?.descriptor ?? -1 }

    /// Whether the system slept since the last check: if so, the next sample delivered follows a gap (the engine
    /// restarts its estimate from it), and a capture reads its sensor at once, at the full rate. Logged.
    /// `resumeReadable`: whether `poll` found `resumeDescriptor` readable.
    func woke(_ id: String, resumeReadable: Bool) -> Bool {
        guard let slept = resumeDetector?.woke(timerReadable: resumeReadable, rearm: readInterval == 0) else { return false }
        gapPending = true
        Log.write(.info, "the system slept \((slept * 10).rounded() / 10) s: reading \(id) at once at the full rate, as the device may have been turned meanwhile")
        return true
    }

    /// Sleeps until `deadline` (monotonic seconds), a stop, a wake from a sleep of the system (`woke`; `id`
    /// names the sensor in the log), or a switch's change.
    func wait(until deadline: Double, _ id: String) -> WaitEnd {
        while !stopRequested {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return .due }
            var fds = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: resumeDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: switchDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 3, Int32((left * 1000).rounded(.up)))
            if woke(id, resumeReadable: fds[1].revents != 0) { return .woke }
            if fds[2].revents != 0, !stopRequested { return .switched }
        }
        return .stopped
    }

    /// Sleeps `seconds` or until a stop; false when stopped.
    private func pause(_ seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + seconds
        while !stopRequested {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return true }
            var p = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, Int32((left * 1000).rounded(.up)))
        }
        return false
    }

    /// Hands one sample to the owner, reporting `.ok` first when the status was something else; `timing` is
    /// `delivery` while the owner has it.
    func deliver(_ sample: Sample, timing: DeliveryTiming) {
        delivery = timing
        delivery.delivered = MonotonicClock.now()
        hadSensor = true
        delivered = true
        report(.ok, time: sample.time)
        var s = sample
        if gapPending {
            s.followsGap = true
            gapPending = false
        }
        onSample(s)
    }

    private func report(_ status: SensorStatus, time: Double = MonotonicClock.now()) {
        guard status != reported, !stopRequested else { return }
        reported = status
        if status == .ok { sessionLog.failureLogged = nil }
        onStatus(status, time)
    }

    private func threadMain() {
        resumeDetector = ResumeDetector()
        defer {
            monitor = nil
            resumeDetector = nil
            control.withLock {
                if $0.stoppedFromCallback { $0.thread?.detach() }
                $0.stoppedFromCallback = false
                $0.running = false
                $0.stopRequested = false
                $0.buffer = 0
            }
        }
        while !stopRequested {
            let outcome = session()
            if case .stopped = outcome { return }
            sessionLog.note(outcome, wasDelivering: reported == .ok, rescanInterval: configuration.rescanInterval)
            if case .failed = outcome { retrying = !delivered } else { retrying = false }
            if stopRequested { return }
            report(hadSensor ? .lost : .none)
            waitForChange()
        }
    }

    /// Waits for a udev event on the iio subsystem, the rescan interval, or a stop.
    private func waitForChange() {
        if monitor == nil { monitor = UDevMonitor(subsystem: "iio") }
        var fds = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: monitor?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, nfds_t(fds.count), Int32(configuration.rescanInterval * 1000))
        if fds[1].revents != 0 {
            monitor?.receive()
            // Let the driver finish creating its attributes before they are read.
            _ = pause(0.05)
        }
    }

    /// One discovery and, when a display accelerometer is found, one capture until it ends.
    private func session() -> SensorCapture.Outcome {
        delivered = false
        let ctx: IIOContext
        let nothing = "no accelerometer found: looked for \(SensorDiscovery.lookingFor); waiting for one to appear"
        do { ctx = try IIOContext(timeoutMilliseconds: UInt32(configuration.bufferSilence * 1000)) } catch {
            // Without any IIO device the directory itself is missing: that is the plain "nothing found" case.
            if case .context(let e) = error, e == .noSuchFileOrDirectory { return .absent(nothing) }
            return .absent("no accelerometer found: looked for \(SensorDiscovery.lookingFor) (\(error)); waiting for one to appear")
        }
        // What a capture of this service that ended without putting its changes back left, before discovery reads
        // the devices: a buffer it left enabled would look like another program's.
        if let dir = SettingsJournal.directory {
            SettingsJournal.recover(in: dir) { entries, pid in SensorSettings.putBack(entries, from: pid, context: ctx) }
        }
        let inventory = SensorDiscovery.inventory(context: ctx, udev: UDevDatabase(), rate: configuration.rate)
        for r in inventory.rejected {
            Log.once(.error, "\(r.id): cannot use this \(r.kind.rawValue): \(r.error)")
        }
        guard let accel = inventory.display, let dev = ctx.device(id: accel.id) else {
            if let base = inventory.base {
                return .absent("no display accelerometer found: \(base.id) (\(base.name)) sits in the base (\(base.locationSource)) and is not used; waiting for \(SensorDiscovery.lookingFor) in the display")
            }
            if let r = inventory.rejected.first(where: { $0.kind == .accelerometer }) {
                return .failed(r.error)
            }
            return .absent(nothing)
        }
        monitor = nil
        sessionLog.absentLogged = false
        let gyro = configuration.gyroscope ? inventory.gyroscope : nil
        let plan = accel.plan
        var message = "using \(accel.id) (\(accel.name)) as the display accelerometer, \(plan.mode.rawValue)"
        if let gyro { message += ", gyroscope \(gyro.id) (\(gyro.name))" + (gyro.id == accel.id ? "" : " \(gyro.plan.mode.rawValue)") }
        let base = BaseSensor(inventory.base, context: ctx, rate: configuration.rate)
        let hinge = inventory.hinge.map(HingeSensor.init)
        let switches = InputSwitches(inventory.switches)
        message += SensorSource.foldSources(inventory, baseUsed: base.sensor != nil, switchesRead: switches.nodes)
        message += "; " + (plan.neighbour.map { "beside \($0)" } ?? "no other reader found") + ": \(plan.reason)"
        if !retrying { Log.limited(.info, key: "using", interval: 5, message) }
        control.withLock {
            $0.sensor = accel
            $0.gyroscope = gyro
        }
        // Each capture starts at the full rate, until the sampling policy has seen the device still.
        readIntervalBits.store(0, ordering: .relaxed)
        let capture = SensorCapture(source: self, context: ctx, device: dev, accelerometer: accel,
                                    gyroscope: gyro, gyroscopeDevice: gyro.flatMap { ctx.device(id: $0.id) }, base: base,
                                    hinge: hinge)
        self.switches = switches
        defer { self.switches = nil }
        return capture.run()
    }

    /// What the "using" line says of the posture's sources: the hinge sensor, read first, the base
    /// accelerometer, and the switches (`switchesRead`: the nodes opened); empty without any.
    static func foldSources(_ inventory: SensorInventory, baseUsed: Bool, switchesRead: [String]) -> String {
        var text = ""
        if let h = inventory.hinge {
            text += "; hinge sensor \(h.id) (\(h.name)) read for the posture and trusted first (\(h.rawFile), ten times a second)"
        }
        if let b = inventory.base {
            text += baseUsed ? "; base accelerometer \(b.id) read for the posture (in_accel_*_raw, ten times a second)"
                : "; base accelerometer \(b.id) has no raw x, y and z and is not used"
        }
        for s in inventory.switches {
            text += "; \(s.reported) of \(s.name) (\(s.node)) "
                + (switchesRead.contains(s.node) ? "read for the posture" : "cannot be opened and is not read")
        }
        return text
    }
}
