import Glibc
import RotationEngine
import RotationProtocol
import RotationSensors
import RotationService

/// Runs an input through the engine into the chosen outputs: standard output, the socket service, or both.
///
/// The outputs are elements of one `Publisher`; the input is an `InputFeed` on its own thread, or, for a
/// replay that only prints, the main thread.
struct Serve {
    let options: Options

    /// A replay's cameras: the configured ones, else the default pair.
    var replayCameras: [Camera] { options.cameras.isEmpty ? Camera.defaults : options.cameras }

    /// Runs until the input ends (printing a replay) or until SIGTERM/SIGINT (serving); returns the exit status.
    func run() -> Int32 {
        guard let path = options.replay else { return serve(nil) }
        let trace: TraceReplay
        do { trace = try TraceReplay(path: path) } catch {
            Log.error("\(error)")
            return 2
        }
        let feed = ReplayFeeder(samples: trace.samples, realtime: options.realtime || options.serve, speed: options.speed,
                                ignoreGyro: options.noGyro, sensorDescription: "replay:\(path)",
                                clock: options.serve ? .monotonic : .trace)
        guard options.serve else {
            var configuration = options.configuration
            do { configuration.disabledRules = try Self.disabledRules() } catch {
                Log.error("\(error)")
                return 2
            }
            let printer = StandardOutputPrinter(mode: .complete)
            let publisher = Publisher(outputs: [printer])
            let runner = EngineRunner(engine: OrientationEngine(configuration: configuration),
                                      cameras: replayCameras, sensor: .ok, publisher: publisher, policy: options.samplingPolicy,
                                      onGyroscopeFinding: feed.gyroscopeFound)
            feed.run(runner)
            publisher.close()
            // A partial output must never pass as a whole one.
            if let why = printer.failure {
                Log.error("the replay's output is incomplete: writing standard output failed (\(why))")
                return 1
            }
            return 0
        }
        return serve(feed)
    }

    /// The decision rules a printing replay switches off: the comma-separated names in the environment variable
    /// `ROTATIOND_DISABLE_RULES`, a measuring aid for `scripts/rule-cost.sh` (`Docs/algorithm.md`). Only the
    /// printing replay reads it; the service never does.
    static func disabledRules() throws(UsageError) -> Set<DecisionRule> {
        guard let raw = getenv("ROTATIOND_DISABLE_RULES") else { return [] }
        var rules: Set<DecisionRule> = []
        for name in String(cString: raw).split(separator: ",", omittingEmptySubsequences: true) {
            guard let rule = DecisionRule(name: String(name)) else {
                let names = DecisionRule.allCases.map(\.name).joined(separator: ", ")
                throw UsageError(description: "ROTATIOND_DISABLE_RULES: no decision rule is called \"\(name)\"; rules: \(names)")
            }
            rules.insert(rule)
        }
        return rules
    }

    /// Serves `replay`, or the live sensor when it is nil, over the socket until SIGTERM or SIGINT.
    func serve(_ replay: ReplayFeeder?) -> Int32 {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        // Blocked before any thread starts, so every thread inherits the mask and only sigwait sees them.
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        signal(SIGPIPE, SIG_IGN)

        var group: UInt32?
        if let name = options.samplesGroup {
            guard let gid = PeerCredentials.groupID(named: name) else {
                Log.error("\(ServiceError.unknownGroup(name))")
                return 2
            }
            group = gid
        }
        let listener: ListeningSocket
        do {
            if let activated = try ListeningSocket.activated() {
                listener = activated
                if options.socket != nil { Log.info("socket-activated: serving on the socket systemd passed, not --socket") }
            } else {
                guard let path = SocketPath.resolve(explicit: options.socket, environment: { name in getenv(name).map { String(cString: $0) } },
                                                    isRoot: geteuid() == 0) else {
                    Log.error(SocketPath.unresolvedAdvice)
                    return 1
                }
                listener = try ListeningSocket.bind(path: path, mode: mode_t(options.socketMode))
            }
        } catch {
            Log.error("\(error)")
            return 1
        }

        let notifier = SystemdNotifier.fromEnvironment()
        var limits = ServerLimits()
        limits.stuckTimeout = options.clientTimeout
        OpenFileLimit.raise(toFit: limits.maxClients)
        // A live service starts idle: the sensor is sampled only while a client is connected. Its cameras are
        // found and followed all along, which costs nothing while none comes or goes.
        let live = replay == nil ? LiveInput(options: options) : nil
        let cameraInput = replay == nil ? CameraInput(configured: options.cameras) : nil
        let cameras = cameraInput?.initial ?? replayCameras
        let feed: any InputFeed = replay ?? live!
        let startStatus: SensorStatus = replay == nil ? .idle : .ok
        let server: SocketServer
        do {
            let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: cameras, sensor: startStatus)
            server = try SocketServer(listener: listener, identity: .init(sensor: feed.sensorDescription),
                                      initial: initial, limits: limits, samplesGroup: group, notifier: notifier)
        } catch {
            listener.close()
            Log.error("\(error)")
            return 1
        }
        var outputs: [any PublisherOutput] = [server]
        // Printing beside the socket must never hold up the input, and through it the clients.
        let printer = options.print ? StandardOutputPrinter(mode: .bounded(queueLimit: 1024)) : nil
        if let printer { outputs.append(printer) }
        let publisher = Publisher(outputs: outputs)
        let runner = EngineRunner(engine: OrientationEngine(configuration: options.configuration),
                                  cameras: cameras, sensor: startStatus, publisher: publisher,
                                  policy: options.samplingPolicy, onGyroscopeFinding: feed.gyroscopeFound)
        live?.attach(to: server)
        let how = listener.activated ? "socket-activated" : "mode \(String(options.socketMode, radix: 8))"
        let cameraNames = cameras.isEmpty ? "none found yet" : cameras.map(\.name).joined(separator: ", ")
        Log.info("serving on \(listener.path) (\(how)); sensor \(feed.sensorDescription ?? "none found yet"); cameras \(cameraNames)")
        // A failed event loop serves nobody: wake the main thread to stop with an error.
        let mainThread = pthread_self()
        server.observeFailure { _ in pthread_kill(mainThread, SIGTERM) }
        cameraInput?.start(runner)
        feed.start(runner)
        server.start()
        notifier?.send("READY=1\nSTATUS=Serving on \(listener.path)")
        live?.trimIfIdle()

        var signo: Int32 = 0
        while sigwait(&blocked, &signo) != 0 {}
        let failure = server.failure
        if let failure {
            notifier?.send("STATUS=Failed: \(failure)")
        } else {
            Log.info("received \(signo == SIGTERM ? "SIGTERM" : "SIGINT"); shutting down")
        }
        notifier?.send("STOPPING=1\nSTATUS=Shutting down")
        // No new client from here on, so none can start the input again while it stops.
        server.stopAccepting()
        feed.stop()
        cameraInput?.stop()
        publisher.close()
        if let why = printer?.failure {
            Log.error("stopped; standard output was incomplete (writing it failed: \(why))")
            return 1
        }
        if failure != nil {
            Log.error("stopped after the event loop failed")
            return 1
        }
        Log.info("stopped")
        return 0
    }
}
