import Glibc
import RotationEngine
import RotationPicture
import RotationProtocol
import RotationSensors
import RotationService
import RotationSystem

/// Runs an input through the engine into the chosen outputs: standard output, the socket service, or both.
///
/// The outputs are elements of one `Publisher`; the input is an `InputFeed` on its own thread, or, for a
/// replay that only prints, the main thread.
struct Serve {
    let options: DaemonOptions

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
        return options.serve ? serve(feed) : printReplay(feed)
    }

    /// Replays `feed` flat out (or paced, with `--realtime`) into standard output alone, on this thread, and
    /// draws the picture `--picture` asks for.
    private func printReplay(_ feed: ReplayFeeder) -> Int32 {
        let picture = options.picture.map { _ in PictureOutput() }
        let status = printReplay(feed, fd: 1, cameras: replayCameras, picture: picture)
        guard status == 0, let path = options.picture, let picture else { return status }
        let name = options.replay.map { String($0.split(separator: "/").last ?? Substring($0)) } ?? "trace"
        do { try TextFile.write(TracePicture.svg(picture.recording(title: "rotationd --replay \(name)", samples: feed.samples, options: options)), to: path) } catch {
            Log.error("--picture: \(error)")
            return 1
        }
        return 0
    }

    /// Replays `feed` into the file descriptor `fd`, one JSON line per change, with `cameras`; `picture`, when
    /// given, keeps the samples and the changes with their rules. Returns the exit status: 2 for a bad
    /// `ROTATIOND_DISABLE_RULES`, 1 when writing failed.
    func printReplay(_ feed: ReplayFeeder, fd: Int32, cameras: [Camera], picture: PictureOutput?) -> Int32 {
        var configuration = options.configuration
        do { configuration.disabledRules = try Self.disabledRules() } catch {
            Log.error("\(error)")
            return 2
        }
        let printer = StandardOutputPrinter(fd: fd, mode: .complete)
        let publisher = Publisher(outputs: [printer] + (picture.map { [$0] } ?? []))
        let runner = EngineRunner(engine: OrientationEngine(configuration: configuration),
                                  cameras: cameras, sensor: .ok, publisher: publisher, policy: options.samplingPolicy,
                                  onGyroscopeFinding: feed.gyroscopeFound)
        feed.run(runner)
        publisher.close()
        // A partial output must never pass as a whole one.
        if let why = printer.failure {
            Log.error("the replay's output is incomplete: writing \(fd == 1 ? "standard output" : "the states") failed (\(why))")
            return 1
        }
        return 0
    }

    /// The decision rules a printing replay switches off: the comma-separated names in the environment variable
    /// `ROTATIOND_DISABLE_RULES`, a measuring aid for `scripts/rule-cost.sh` (`Docs/algorithm.md`). Only the
    /// printing replay reads it; the service never does.
    static func disabledRules() throws(DisabledRuleError) -> Set<DecisionRule> {
        guard let raw = getenv("ROTATIOND_DISABLE_RULES") else { return [] }
        var rules: Set<DecisionRule> = []
        for name in String(cString: raw).split(separator: ",", omittingEmptySubsequences: true) {
            guard let rule = DecisionRule(name: String(name)) else {
                throw DisabledRuleError(name: String(name), known: DecisionRule.allCases.map(\.name).joined(separator: ", "))
            }
            rules.insert(rule)
        }
        return rules
    }

    /// Serves `replay`, or the live sensor when it is nil, over the socket until SIGTERM or SIGINT.
    func serve(_ replay: ReplayFeeder?) -> Int32 {
        var stopSignals = Self.blockStopSignals()
        let group: UInt32?
        do { group = try samplesGroupID() } catch {
            Log.error("\(error)")
            return 2
        }
        guard let listener = openListener() else { return 1 }
        guard let service = assemble(listener: listener, samplesGroup: group, replay: replay) else { return 1 }
        service.start()
        let failure = service.waitForStop(&stopSignals)
        return service.stop(after: failure)
    }

    /// Blocks SIGTERM and SIGINT, to be taken by `sigwait` alone, and ignores SIGPIPE; returns the blocked set.
    ///
    /// Called before any thread starts, so every thread inherits the mask.
    private static func blockStopSignals() -> sigset_t {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        signal(SIGPIPE, SIG_IGN)
        return blocked
    }

    /// The group `--samples-group` names, or nil without that option.
    private func samplesGroupID() throws(ServiceError) -> UInt32? {
        guard let name = options.samplesGroup else { return nil }
        guard let gid = PeerCredentials.groupID(named: name) else { throw .unknownGroup(name) }
        return gid
    }

    /// The socket systemd passed, else one bound at the path `--socket` or the defaults give; nil (logged) when
    /// there is none.
    private func openListener() -> ListeningSocket? {
        do {
            if let activated = try ListeningSocket.activated() {
                if options.socket != nil { Log.info("socket-activated: serving on the socket systemd passed, not --socket") }
                return activated
            }
            guard let path = SocketPath.resolve(explicit: options.socket, environment: { name in getenv(name).map { String(cString: $0) } },
                                                isRoot: geteuid() == 0) else {
                Log.error(SocketPath.unresolvedAdvice)
                return nil
            }
            return try ListeningSocket.bind(path: path, mode: mode_t(options.socketMode))
        } catch {
            Log.error("\(error)")
            return nil
        }
    }

    /// Wires the input (`replay`, or the live sensor), the cameras, the engine and the outputs around a socket
    /// server on `listener`; nil (logged, the listener closed) when the server cannot be made.
    private func assemble(listener: ListeningSocket, samplesGroup: UInt32?, replay: ReplayFeeder?) -> RunningService? {
        let notifier = SystemdNotifier.fromEnvironment()
        var limits = ServerLimits()
        limits.stuckTimeout = options.clientTimeout
        OpenFileLimit.raise(toFit: limits.maxClients)
        // A live service starts idle: the sensor is sampled only while a client is connected. Its cameras are
        // found and followed all along, which costs nothing while none comes or goes.
        // The desktop's tablet-mode switch must follow the posture whether or not a client is connected.
        let tabletSwitch = replay == nil && options.tabletModeSwitch ? TabletModeSwitch.make(rate: options.rate) : nil
        var liveOptions = options
        if tabletSwitch != nil { liveOptions.always = true }
        let live = replay == nil ? LiveInput(options: liveOptions) : nil
        // A live service remembers cameras and users' choices in its state directory; a served replay, for the run.
        let store = PreferenceStore(directory: replay == nil ? Self.stateDirectory : nil)
        let cameraInput = replay == nil ? CameraInput(configured: options.cameras, store: store) : nil
        let cameras = cameraInput?.initial ?? replayCameras
        let arrival = cameraInput?.initialArrival
        let feed: any InputFeed = replay ?? live!
        let startStatus: SensorStatus = replay == nil ? .idle : .ok
        let server: SocketServer
        do {
            let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: cameras, sensor: startStatus, arrival: arrival)
            server = try SocketServer(listener: listener, identity: .init(sensor: feed.sensorDescription),
                                      initial: initial, limits: limits, samplesGroup: samplesGroup, notifier: notifier,
                                      store: store)
        } catch {
            listener.close()
            Log.error("\(error)")
            return nil
        }
        var outputs: [any PublisherOutput] = [server]
        if let tabletSwitch { outputs.append(tabletSwitch) }
        // Printing beside the socket must never hold up the input, and through it the clients.
        let printer = options.print ? StandardOutputPrinter(mode: .bounded(queueLimit: 1024)) : nil
        if let printer { outputs.append(printer) }
        let publisher = Publisher(outputs: outputs)
        let runner = EngineRunner(engine: OrientationEngine(configuration: options.configuration),
                                  cameras: cameras, arrival: arrival, sensor: startStatus, publisher: publisher,
                                  policy: options.samplingPolicy, onGyroscopeFinding: feed.gyroscopeFound)
        return RunningService(listener: listener, server: server, publisher: publisher, printer: printer, runner: runner,
                              feed: feed, live: live, cameraInput: cameraInput, store: store, notifier: notifier,
                              cameras: cameras, socketMode: options.socketMode)
    }

    /// The live service's state directory: `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else /var/lib/rotationd.
    static var stateDirectory: String {
        PreferenceStore.directory { getenv($0).map { String(cString: $0) } }
    }
}
