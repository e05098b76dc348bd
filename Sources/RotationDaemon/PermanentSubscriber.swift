import Glibc
import RotationEngine
import RotationProtocol
import RotationSensors
import RotationService
import RotationSystem

/// `rotationd --print` and `--record`: the live sensor with one subscriber that stays for the whole run.
enum PermanentSubscriber {
    /// `--print` and `--record`: one permanent subscriber; runs until SIGTERM, SIGINT or SIGHUP, then exits 0.
    ///
    /// The same runner and publisher as `--serve`, with standard output and the recording as outputs.
    static func run(_ options: DaemonOptions) -> Int32 {
        var stopSignals = blockStopSignals()
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
        if options.tabletModeSwitch, let made = TabletModeSwitch.make(rate: options.rate) { outputs.append(made) }
        // A recording keeps every sample, so it can be replayed with the policy or without it.
        follow(options, outputs: outputs, everySample: options.record != nil) {
            var received: Int32 = 0
            sigwait(&stopSignals, &received)
        }
        return printer?.failure == nil ? 0 : 1
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP in this thread (the sensor thread inherits the mask), whatever disposition
    /// or mask the parent left behind, to be taken by `sigwait`; ignores SIGPIPE. Returns the blocked set.
    static func blockStopSignals() -> sigset_t {
        signal(SIGPIPE, SIG_IGN)
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        for s in [SIGTERM, SIGINT, SIGHUP] {
            signal(s, SIG_DFL)
            sigaddset(&stopSignals, s)
        }
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        return stopSignals
    }

    /// Follows the live sensor and the cameras into `outputs` until `wait` returns, then stops them and closes the
    /// outputs; returns the cameras found at the start. `everySample`: read at the full rate, also while still.
    @discardableResult
    static func follow(_ options: DaemonOptions, outputs: [any PublisherOutput], everySample: Bool, wait: () -> Void) -> [Camera] {
        let publisher = Publisher(outputs: outputs)
        // The service's memory of cameras is the service's own: this run remembers only what it sees.
        let cameras = CameraInput(configured: options.cameras, store: PreferenceStore(directory: nil))
        let input = LiveInput(options: options)
        let runner = EngineRunner(engine: OrientationEngine(configuration: options.configuration),
                                  cameras: cameras.initial, arrival: cameras.initialArrival, sensor: .idle, publisher: publisher,
                                  policy: everySample ? nil : options.samplingPolicy,
                                  onGyroscopeFinding: input.gyroscopeFound)
        cameras.start(runner)
        input.start(runner)
        input.subscriberAdded()
        wait()
        input.stop()
        cameras.stop()
        publisher.close()
        return cameras.initial
    }
}
