import Glibc
import RotationProtocol
import RotationService
import RotationSystem

/// A serving rotationd's parts once wired together: the socket server and the outputs beside it, the engine
/// runner, the input and the cameras; `Serve` assembles it, then starts, waits on and stops it.
struct RunningService {
    let listener: ListeningSocket
    let server: SocketServer
    let publisher: Publisher
    /// Standard output beside the socket (`--print`), or nil.
    let printer: StandardOutputPrinter?
    let runner: EngineRunner
    let feed: any InputFeed
    /// The live sensor, when it is the input (not a replay).
    let live: LiveInput?
    /// The cameras followed through udev, when the input is live.
    let cameraInput: CameraInput?
    /// The camera memory and users' preferred cameras.
    let store: PreferenceStore
    let notifier: SystemdNotifier?
    /// The cameras at start-up.
    let cameras: [Camera]
    let socketMode: UInt32

    /// Starts the inputs and the event loop, logs what is served and tells systemd the service is ready.
    func start() {
        live?.attach(to: server)
        let how = listener.activated ? "socket-activated" : "mode \(String(socketMode, radix: 8))"
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
    }

    /// Waits for one of the blocked `stopSignals` and tells systemd the service is stopping; returns why the
    /// event loop failed, or nil when a signal asked it to stop.
    func waitForStop(_ stopSignals: inout sigset_t) -> String? {
        var signo: Int32 = 0
        while sigwait(&stopSignals, &signo) != 0 {}
        let failure = server.failure
        if let failure {
            notifier?.send("STATUS=Failed: \(failure)")
        } else {
            Log.info("received \(signo == SIGTERM ? "SIGTERM" : "SIGINT"); shutting down")
        }
        notifier?.send("STOPPING=1\nSTATUS=Shutting down")
        return failure
    }

    /// Stops accepting, then the input, the cameras and the outputs; returns the exit status, 1 when the event
    /// loop had `failure` or standard output was incomplete.
    func stop(after failure: String?) -> Int32 {
        // No new client from here on, so none can start the input again while it stops.
        server.stopAccepting()
        feed.stop()
        cameraInput?.stop()
        publisher.close()
        store.flush()
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
