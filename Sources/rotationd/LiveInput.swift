#if canImport(Glibc)
import Glibc
#endif
import RotationEngine
import RotationSensors
import Synchronization

/// Live sensor input inside the daemon: runs the sensor source only while someone wants samples.
///
/// Subscribers are counted with `subscriberAdded()` / `subscriberRemoved()`; the source starts when the count
/// goes from 0 to 1 and stops when it returns to 0, unless `--always` keeps it running. With no subscriber
/// there is no sensor thread, no open device and no periodic wake-up.
///
/// `sink` receives every calibrated sample and every status change, on the sensor thread, one at a time, in
/// order (the `SensorSource` threading contract). It is where the engine is fed.
final class LiveInput: @unchecked Sendable {
    /// What the sensor thread hands on.
    enum Event {
        /// One calibrated sample.
        case sample(Sample)
        /// The sensor status changed at the given monotonic time.
        case status(SensorStatus, time: Double)
    }

    private let source: SensorSource
    private let always: Bool
    private let sink: @Sendable (Event) -> Void
    private let subscribers = Mutex(0)

    /// Creates a stopped input; with `--always` it starts at once.
    init(options: Options, sink: @escaping @Sendable (Event) -> Void) {
        var config = SensorSource.Configuration()
        config.rate = options.rate
        config.gyroscope = !options.noGyro
        source = SensorSource(configuration: config)
        always = options.always
        self.sink = sink
        if always { start() }
    }

    private func start() {
        let sink = self.sink
        source.start(onSample: { sink(.sample($0)) },
                     onStatus: { sink(.status($0, time: $1)) })
    }

    /// A subscriber connected: start sampling if it is the first.
    func subscriberAdded() {
        let first = subscribers.withLock { n -> Bool in
            n += 1
            return n == 1
        }
        if first && !always { start() }
    }

    /// A subscriber left: stop sampling if it was the last, unless `--always` is set.
    func subscriberRemoved() {
        let last = subscribers.withLock { n -> Bool in
            guard n > 0 else { return false }
            n -= 1
            return n == 0
        }
        if last && !always { source.stop() }
    }

    /// Stops sampling whatever the subscriber count.
    func shutdown() { source.stop() }

    /// `rotationd --list`: prints every sensor found and what would be used; 0 even when none is found.
    static func list(_ options: Options) -> Int32 {
        let out = OutputStreamFD.standardOutput
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: options.rate) } catch {
            SensorLog.write(.error, error.description)
            out.write("no sensors: \(error)\n")
            return 0
        }
        if inventory.accelerometers.isEmpty && inventory.gyroscopes.isEmpty && inventory.rejected.isEmpty {
            out.write("no sensors found: looked for \(SensorDiscovery.lookingFor), and anglvel_x/y/z for a gyroscope\n")
            return 0
        }
        for s in inventory.accelerometers + inventory.gyroscopes {
            var role: String
            if s.kind == .accelerometer {
                role = s.id == inventory.display?.id ? "display accelerometer, fed to the engine"
                    : (s.location == .base ? "base accelerometer, not used" : "second display accelerometer, not used")
            } else {
                role = s.id == inventory.gyroscope?.id && !options.noGyro ? "gyroscope, fused with the display accelerometer"
                    : "gyroscope, not used"
            }
            out.write(s.listing + "\n  role: \(role)\n")
        }
        for r in inventory.rejected {
            out.write("\(r.id): \(r.kind.rawValue), cannot be used: \(r.error)\n")
        }
        return 0
    }

    /// `--print` and `--record`: one permanent subscriber; runs until SIGTERM, SIGINT or SIGHUP, then exits 0.
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
        var recorder: TraceRecorder? = nil
        if let path = options.record {
            do { recorder = try TraceRecorder(path: path) } catch {
                SensorLog.write(.error, "--record: \(error)")
                return 2
            }
        }
        let printer = options.print ? Printer(options: options) : nil
        let input = LiveInput(options: options) { [recorder] event in
            if case .sample(let s) = event { recorder?.record(s) }
            printer?.handle(event)
        }
        input.subscriberAdded()
        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        input.shutdown()
        return 0
    }

    /// The `--print` consumer: runs the engine on live samples and writes each published event as a JSON line.
    final class Printer: @unchecked Sendable {
        private var engine: OrientationEngine
        private let cameras: [Camera]
        private var seq = 0
        private var sensor = SensorStatus.none

        init(options: Options) {
            engine = OrientationEngine(configuration: options.configuration)
            cameras = options.cameras
        }

        /// Feeds a sample or a status change; called on the sensor thread only.
        func handle(_ event: LiveInput.Event) {
            switch event {
            case .sample(let s):
                if let state = engine.process(s) { emit(time: s.time, state: state) }
            case .status(let status, let time):
                sensor = status
                emit(time: time, state: engine.state)
            }
        }

        private func emit(time: Double, state: DeviceState) {
            seq += 1
            let event = StateEvent(seq: seq, time: time, state: state, cameras: cameras, sensor: sensor)
            if !OutputStreamFD.standardOutput.write(event.jsonLine + "\n") { exit(0) }
        }
    }
}
