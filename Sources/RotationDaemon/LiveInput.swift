import RotationEngine
import RotationSensors
import RotationService
import Synchronization
import RotationSystem

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
    private let idleTrim = Mutex<SystemThread?>(nil)
    // Set before sampling starts, read on the sensor thread.
    private var runner: EngineRunner?
    private var onDevice: @Sendable (String?) -> Void = { _ in }

    /// Creates a stopped input and looks for the sensor once (reading sysfs only, opening nothing).
    init(options: DaemonOptions) {
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
        let previous = idleTrim.withLock { thread -> SystemThread? in
            defer { thread = nil }
            return thread
        }
        let next = SystemThread.start {
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
        idleTrim.withLock { thread -> SystemThread? in
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
}
