import Glibc
import RotationEngine
import RotationSensors
import RotationService
import Synchronization

/// The live sensor as an input feed: runs the sensor source only while someone wants samples.
///
/// Subscribers are counted with `subscriberAdded()` / `subscriberRemoved()`, called from one thread (the socket
/// server's, or the main thread for `--print` and `--record`); the source starts when the count goes from 0 to
/// 1 and stops when it returns to 0, unless `--always` keeps it running. With no subscriber there is no sensor
/// thread, no open device and no periodic wake-up. When sampling stops for want of subscribers, the runner
/// publishes `.idle` and forgets the engine, so the next subscriber sees the device's pose afresh.
///
/// Samples and status changes go to the runner on the sensor thread, one at a time, in order (the
/// `SensorSource` threading contract); the `.idle` change is published on the thread that removed the last
/// subscriber, after the sensor thread has ended.
final class LiveInput: InputFeed, @unchecked Sendable {
    /// The display accelerometer found at startup, as "iio:device0 (accel_3d)", or nil when there was none.
    let sensorDescription: String?
    private let source: SensorSource
    private let always: Bool
    private let subscribers = Mutex(0)
    private let scaleCheck = ScaleCheck()
    private let trim = TrimAfterStart()
    /// The trim after the last subscriber left, running or done; each one joins the one before it.
    private let idleTrim = Mutex<ServiceThread?>(nil)
    // Set before sampling starts, read on the sensor thread.
    private var runner: EngineRunner?
    private var onDevice: @Sendable (String?) -> Void = { _ in }

    /// Creates a stopped input and looks for the sensor once (reading sysfs only, opening nothing).
    init(options: Options) {
        var config = SensorSource.Configuration()
        config.rate = options.rate
        config.gyroscope = !options.noGyro
        source = SensorSource(configuration: config)
        always = options.always
        let display = (try? SensorDiscovery.scan(rate: options.rate))?.display
        sensorDescription = display.map { "\($0.id) (\($0.name))" }
    }

    /// Serves through `server`: its clients are the subscribers, and its `hello` names the sensor in use
    /// (refreshed each time sampling finds it). Call before `start`.
    func attach(to server: SocketServer) {
        onDevice = { server.setSensorDescription($0) }
        server.observeClients { [self] connected in
            if connected { self.subscriberAdded() } else { self.subscriberRemoved() }
        }
    }

    /// Remembers `runner`; with `--always`, sampling starts now.
    func start(_ runner: EngineRunner) {
        self.runner = runner
        if always { startSampling() }
    }

    private func startSampling() {
        guard let runner else { return }
        let source = self.source, onDevice = self.onDevice
        let scale = self.scaleCheck, trim = self.trim
        source.start(onSample: { sample in
                         let timed = Log.minimumLevel == .debug
                         let before = timed ? runner.changes : 0
                         let interval = runner.feed(sample)
                         if timed { LiveInput.logStages(source.delivery, runner: runner, since: before) }
                         source.setReadInterval(interval)
                         scale.check(source: source, runner: runner)
                         trim.check(sample.time, still: interval > 0)
                     },
                     onStatus: { status, time in
                         switch status {
                         case .ok:
                             scale.rearm()
                             onDevice(source.device)
                         case .none: onDevice(nil)
                         case .lost, .idle: break
                         }
                         runner.setSensor(status, time: time)
                     })
    }

    /// Logs (at debug level, in µs on CLOCK_MONOTONIC) when the sample behind a change passed each stage before the
    /// socket, when `runner`
    /// published one since its `changes` were `before`: the live path's latency budget (`scripts/bench-stages.sh`).
    /// The socket server logs the rest ("written") under the same sequence number.
    private static func logStages(_ t: DeliveryTiming, runner: EngineRunner, since before: Int) {
        let decided = MonotonicClock.now()
        let event = runner.current
        guard event.seq != before else { return }
        let f = { (v: Double) in "\(Int((v * 1e6).rounded()))" }
        let rotation = event.state.rotation.map { "\($0.degrees)" } ?? "none"
        Log.debug("stages of change \(event.seq): rotation \(rotation), measured \(f(t.measured)), readable \(f(t.readable)), woke \(f(t.woke)), read \(f(t.read)), delivered \(f(t.delivered)), decided \(f(decided))")
    }

    /// A subscriber connected: start sampling if it is the first.
    func subscriberAdded() {
        let first = subscribers.withLock { n -> Bool in
            n += 1
            return n == 1
        }
        if first && !always { startSampling() }
    }

    /// A subscriber left: if it was the last (and without `--always`), stop sampling and publish `.idle`.
    ///
    /// Returns promptly: stopping cancels a pending buffer read or poll, and the sensor thread then ends; the trim
    /// that gives back what capturing touched runs on a thread of its own.
    func subscriberRemoved() {
        let last = subscribers.withLock { n -> Bool in
            guard n > 0 else { return false }
            n -= 1
            return n == 0
        }
        guard last && !always else { return }
        let begin = MonotonicClock.now()
        source.stop()
        let end = MonotonicClock.now()
        Log.debug("no client is connected: sampling stopped in \(Int(((end - begin) * 1000).rounded())) ms")
        runner?.setSensor(.idle, time: end)
        // Idle, the service waits for a client with nothing running: what capturing touched can go. On a thread
        // of its own, as the start-up trim: this is the socket server's thread, and a trim reads all of
        // /proc/self/smaps, which can take long enough to keep the next client waiting.
        let startUp = trim.take()
        let previous = idleTrim.withLock { thread -> ServiceThread? in
            defer { thread = nil }
            return thread
        }
        let next = ServiceThread {
            startUp?.join()
            previous?.join()
            let released = ResidentTrim.trim()
            Log.debug("gave back \(released) kB of pages the capture touched")
        }
        idleTrim.withLock { $0 = next }
    }

    /// Stops sampling whatever the subscriber count, and waits for the trims still running.
    func stop() {
        source.stop()
        trim.take()?.join()
        idleTrim.withLock { thread -> ServiceThread? in
            defer { thread = nil }
            return thread
        }?.join()
    }

    /// Trims the resident set (`ResidentTrim`) once the service is ready, if nobody is subscribed: start-up is
    /// over, and a service started by udev or at boot may wait long for its first client with nothing running.
    func trimIfIdle() {
        guard !always, subscribers.withLock({ $0 }) == 0 else { return }
        let released = ResidentTrim.trim()
        Log.debug("ready with no client: gave back \(released) kB of start-up pages")
    }

    /// Logs, once per capture, that the gyroscope disagreed with the accelerometer, naming the attributes its
    /// readings were scaled and turned by.
    func gyroscopeFound(_ finding: GyroscopeFinding, at time: Double) {
        guard let gyro = source.gyroscope else { return }
        let c = gyro.calibration
        var files: [String] = []
        for f in c.scaleSources where f != "default" && !files.contains(f) { files.append(f) }
        let scale = files.isEmpty ? "the gyroscope has no scale attribute, so its readings were taken as rad/s"
            : "its scale (\(files.joined(separator: ", ")): \(c.scale.x))"
        var likely = "\(scale) is probably wrong"
        if let factor = finding.factor, factor > 0 {
            likely += " by a factor of about \(ScaleDiagnosis.format(factor))"
        }
        Log.warning("\(gyro.id) (\(gyro.name)): the gyroscope \(finding.description); \(likely), or its mount matrix (\(c.matrixSource)) does not match the accelerometer's; rotations are decided from the accelerometer alone")
    }

    /// Checks once per capture, when the part has been still long enough to tell, whether its scale is wrong,
    /// and warns once per device.
    ///
    /// Touched only on the sensor thread (one at a time); a finished check costs one comparison per sample.
    private final class ScaleCheck: @unchecked Sendable {
        private var done = false
        private var warned: Set<String> = []

        func rearm() { done = false }

        func check(source: SensorSource, runner: EngineRunner) {
            guard !done, let sensor = source.sensor,
                  let diagnosis = ScaleDiagnosis(sensor: sensor, learned: runner.learnedGravity,
                                                 gravity: runner.configuration.gravity) else { return }
            done = true
            if diagnosis.isWrong, warned.insert(sensor.id).inserted {
                Log.warning(diagnosis.description)
            } else {
                Log.debug(diagnosis.description)
            }
        }
    }

    /// Trims the resident set (`ResidentTrim`) once, when the first capture has run for `delay` seconds, or as
    /// soon as the sampling policy first finds the device still: start-up, discovery and the capture's set-up
    /// are over by then, and a part that watches for motion itself delivers no more samples while still.
    ///
    /// The trim runs on a thread of its own: the first still sample is the one after which the capture
    /// changes pace (a buffer reopened at the still frequency, a motion event armed), and a trim reads all of
    /// /proc/self/smaps, which on a loaded machine can take longer than `maxGap`; on the sensor thread, the
    /// part would go unread that long, and the engine would start afresh after the gap.
    ///
    /// `check` is called only on the sensor thread; `take` once that thread has ended. A finished trim costs
    /// one comparison per sample.
    private final class TrimAfterStart: @unchecked Sendable {
        static let delay = 3.0
        private var first: Double?
        private var done = false
        private var thread: ServiceThread?

        func check(_ time: Double, still: Bool) {
            guard !done else { return }
            guard let first else {
                self.first = time
                return
            }
            guard still || time - first >= TrimAfterStart.delay else { return }
            done = true
            thread = ServiceThread {
                let released = ResidentTrim.trim()
                Log.debug("gave back \(released) kB of start-up pages")
            }
        }

        /// The trim's thread, if it has not been taken yet, for the caller to join.
        func take() -> ServiceThread? {
            defer { thread = nil }
            return thread
        }
    }

    /// `rotationd --list`: prints every sensor and every camera found, and what would be used; 0 even when
    /// none is found.
    static func list(_ options: Options) -> Int32 {
        let out = OutputStreamFD.standardOutput
        out.write(sensorListing(options))
        out.write(CameraInput.list(options))
        return 0
    }

    private static func sensorListing(_ options: Options) -> String {
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: options.rate) } catch {
            Log.error(error.description)
            return "no sensors: \(error)\n"
        }
        if inventory.accelerometers.isEmpty && inventory.gyroscopes.isEmpty && inventory.rejected.isEmpty {
            return "no sensors found: looked for \(SensorDiscovery.lookingFor), and anglvel_x/y/z for a gyroscope\n"
        }
        var text = ""
        for s in inventory.accelerometers + inventory.gyroscopes {
            var role: String
            if s.kind == .accelerometer {
                role = s.id == inventory.display?.id ? "display accelerometer, fed to the engine"
                    : (s.location == .base ? (s.id == inventory.base?.id ? "base accelerometer, read for the posture" : "second base accelerometer, not used")
                       : "second display accelerometer, not used")
            } else {
                role = s.id == inventory.gyroscope?.id && !options.noGyro ? "gyroscope, fused with the display accelerometer"
                    : "gyroscope, not used"
            }
            text += s.listing + "\n  role: \(role)\n"
            if s.kind == .accelerometer && s.id == inventory.display?.id {
                text += "  at rest: \(atRest(options))\n"
            }
        }
        for r in inventory.rejected {
            text += "\(r.id): \(r.kind.rawValue), cannot be used: \(r.error)\n"
        }
        text += "posture: " + postureSources(inventory) + "\n"
        return text
    }

    /// The posture's sources found, and the one used: `Docs/posture.md`, "Sources, most trusted first".
    static func postureSources(_ inventory: SensorInventory) -> String {
        guard let display = inventory.display, let base = inventory.base else {
            return "none found (no hinge sensor, no base accelerometer beside a display one): published as null"
        }
        return "from the display and base accelerometers together (\(display.id) and \(base.id)), used; no hinge sensor, "
            + "and the tablet-mode and lid switches are not read"
    }

    /// How long `--list` samples the display accelerometer to learn what 1 g reads.
    static let listSamplingTime = 3.0

    /// Samples the display accelerometer until the engine has seen a second of stillness (at most
    /// `listSamplingTime`), and says what 1 g reads and whether the scale is right.
    static func atRest(_ options: Options) -> String {
        var config = SensorSource.Configuration()
        config.rate = options.rate
        config.gyroscope = false
        let source = SensorSource(configuration: config)
        let engine = Mutex(OrientationEngine(configuration: options.configuration))
        let samples = Atomic<Int>(0)
        source.start(onSample: { sample in
            engine.withLock { _ = $0.process(sample) }
            samples.add(1, ordering: .relaxed)
        }, onStatus: { _, _ in })
        let deadline = MonotonicClock.now() + listSamplingTime
        var diagnosis: ScaleDiagnosis?
        while MonotonicClock.now() < deadline {
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            nanosleep(&pause, nil)
            if let sensor = source.sensor {
                let learned = engine.withLock { $0.learnedGravity }
                diagnosis = ScaleDiagnosis(sensor: sensor, learned: learned, gravity: options.configuration.gravity)
                if diagnosis != nil { break }
            }
        }
        source.stop()
        if let diagnosis { return diagnosis.description }
        let count = samples.load(ordering: .relaxed)
        if count == 0 { return "no sample could be read within \(Int(listSamplingTime)) s (see the messages above)" }
        return "not still for a second within \(Int(listSamplingTime)) s (\(count) samples), so what 1 g reads is not known; hold the device still and run --list again"
    }

    /// `--print` and `--record`: one permanent subscriber; runs until SIGTERM, SIGINT or SIGHUP, then exits 0.
    ///
    /// The same runner and publisher as `--serve`, with standard output and the recording as outputs.
    static func runWithPermanentSubscriber(_ options: Options) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Take the stop signals in this thread only (the sensor thread inherits the mask), whatever
        // disposition or mask the parent left behind.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        for s in [SIGTERM, SIGINT, SIGHUP] {
            signal(s, SIG_DFL)
            sigaddset(&stopSignals, s)
        }
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        var outputs: [any PublisherOutput] = []
        if let path = options.record {
            do { outputs.append(TraceRecordingOutput(recorder: try TraceRecorder(path: path))) } catch {
                Log.error("--record: \(error)")
                return 2
            }
        }
        // When standard output goes away (`rotationd --print | head -1`), there is no one left to print for.
        let printer = options.print ? StandardOutputPrinter(onFailure: { kill(getpid(), SIGTERM) }) : nil
        if let printer { outputs.append(printer) }
        let publisher = Publisher(outputs: outputs)
        let cameras = CameraInput(configured: options.cameras)
        // A recording keeps every sample, so it can be replayed with the policy or without it.
        let input = LiveInput(options: options)
        let runner = EngineRunner(engine: OrientationEngine(configuration: options.configuration),
                                  cameras: cameras.initial, sensor: .idle, publisher: publisher,
                                  policy: options.record == nil ? options.samplingPolicy : nil,
                                  onGyroscopeFinding: input.gyroscopeFound)
        cameras.start(runner)
        input.start(runner)
        input.subscriberAdded()
        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        input.stop()
        cameras.stop()
        publisher.close()
        return printer?.failure == nil ? 0 : 1
    }
}
