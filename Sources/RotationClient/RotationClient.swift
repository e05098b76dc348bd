import Glibc
// A client program that imports RotationClient connects with LineConnection and meets ClientError too.
@_exported import RotationConnection
import RotationProtocol
import RotationSystem
import Synchronization

/// A subscriber to rotationd: connects to its socket, presents what it publishes as an `AsyncSequence`,
/// reconnects with backoff when the service goes away, and keeps the recent states it received to tell
/// the capture angle at a moment.
public final class RotationClient: Sendable {
    /// The socket path.
    public let path: String
    private let history: Mutex<StateHistory>
    /// The latest state received by any call, with a time or not.
    private let latest = Mutex<StateEvent?>(nil)

    /// Uses `path`, or the default path: `ROTATIOND_SOCKET`, else the per-user socket when it exists
    /// (root: the system one), else the system socket (`SocketPath.resolveForClient`). The client keeps the
    /// latest `historyLimit` states that `events()` receives (`state(at:)`).
    public init(path: String? = nil, historyLimit: Int = 256) {
        self.path = SocketPath.resolveForClient(explicit: path, environment: { getenv($0).map { String(cString: $0) } },
                                                isRoot: geteuid() == 0, exists: { access($0, F_OK) == 0 })
        history = Mutex(StateHistory(capacity: historyLimit))
    }

    /// The state in force at `time`, seconds on CLOCK_MONOTONIC (the clock of V4L2 buffer timestamps and of a
    /// live service's `t`), from the states `events()` has received; nil when they do not tell
    /// (`StateHistory.state(at:)`).
    public func state(at time: Double) -> StateEvent? { history.withLock { $0.state(at: time) } }

    /// Degrees clockwise a frame taken at `time` (CLOCK_MONOTONIC seconds) by the camera `camera` names
    /// (its name, libcamera id, node or bus path) must turn to be upright; nil when not known. Ask it once for
    /// a recording's first frame and keep the answer: a track holds one orientation.
    public func captureAngle(camera: String, at time: Double) -> Int? {
        history.withLock { $0.captureAngle(camera: camera, at: time) }
    }

    /// The states received, oldest first, with where changes may have been missed.
    public var recentStates: [StateHistory.Entry] { history.withLock { $0.entries } }

    /// The camera the service recommends to this user (its `preferred`), from the latest state received by
    /// `events()`, `currentState()` or `prefer(_:)`; nil when there is none or no state was received yet. A capture
    /// program opens it, and follows a change (`ServiceEvent.preferredCamera`) only while not recording.
    public var preferredCamera: Camera? { latest.withLock { $0?.preferredCamera } }

    /// Records `state` as the latest, and in the history (`newConnection`: the first on a connection).
    private func received(_ state: StateEvent, newConnection: Bool = false) {
        latest.withLock { $0 = state }
        history.withLock { $0.record(state, newConnection: newConnection) }
    }

    /// Makes the camera `key` names (its name, device node, libcamera id or bus path) this user's preferred camera,
    /// kept by the service across restarts; nil forgets the choice. Returns the service's answer, a state whose
    /// `preferred` is the camera now recommended, once the choice is on the service's disk.
    ///
    /// Throws when the service cannot be reached, or refuses (`ClientError.refusal`: a key that names no camera).
    @discardableResult
    public func prefer(_ key: String?, timeout: Double = 5) throws(ClientError) -> StateEvent {
        let c = try LineConnection(path: path)
        defer { c.close() }
        // Changes are switched off first, so the first state after `subscribed` is the answer.
        try c.send(ClientCommand.subscribe([]).jsonLine + "\n" + ClientCommand.prefer(key).jsonLine)
        var subscribed = false
        while let line = try c.readLine(timeout: timeout) {
            switch ServerMessage.decode(line) {
            case .subscribed?:
                subscribed = true
            case .state(let state)? where subscribed:
                // The latest state, not the history's: the answer comes on a connection of its own, beside the
                // stream of changes `events()` records.
                latest.withLock { $0 = state }
                return state
            case .error(let refusal)? where subscribed:
                throw ClientError(path: path, reason: refusal.message, refusal: refusal)
            default:
                continue
            }
        }
        throw ClientError(path: path, reason: "no answer to prefer within \(timeout) s")
    }

    /// `nanoseconds` on CLOCK_BOOTTIME (libcamera's `SensorTimestamp`) as seconds on CLOCK_MONOTONIC, the
    /// service's clock. The two differ by the time the system has been suspended, which is read now, between
    /// two readings of CLOCK_MONOTONIC; convert soon after the frame, since a suspend in between moves it.
    public static func monotonicSeconds(fromBoottimeNanoseconds nanoseconds: UInt64) -> Double {
        let (boot, mono) = MonotonicClock.bootAndMonotonic()
        return monotonicSeconds(fromBoottimeNanoseconds: nanoseconds, boottimeNow: boot, monotonicNow: mono)
    }

    /// The same conversion with the two clocks as read at one moment (seconds): `nanoseconds` less the time
    /// spent suspended, `boottimeNow − monotonicNow`.
    public static func monotonicSeconds(fromBoottimeNanoseconds nanoseconds: UInt64, boottimeNow: Double, monotonicNow: Double) -> Double {
        Double(nanoseconds) / 1e9 - (boottimeNow - monotonicNow)
    }

    /// Connects once and returns the greeting and the current state, without reconnecting; the states read
    /// go to the history (`state(at:)`).
    ///
    /// A service that was idle (sensor `idle`: not sampling because nobody was subscribed) starts
    /// sampling as this connection arrives; the state then says nothing about the device, so this waits
    /// up to `idleWait` seconds for the next state with another sensor status and returns that one (or
    /// the idle state when none comes in time).
    public func currentState(timeout: Double = 5, idleWait: Double = 3) throws(ClientError) -> (hello: Hello, state: StateEvent, stateLine: String) {
        let c = try LineConnection(path: path)
        defer { c.close() }
        guard let first = try c.readLine(timeout: timeout) else { throw ClientError(path: path, reason: "no greeting from the service") }
        guard case .hello(let hello)? = ServerMessage.decode(first) else {
            throw ClientError(path: path, reason: "the first line is not a protocol \(Hello.currentProtocol) hello")
        }
        guard let second = try c.readLine(timeout: timeout), case .state(let state)? = ServerMessage.decode(second) else {
            throw ClientError(path: path, reason: "no state after the greeting")
        }
        received(state, newConnection: true)
        guard state.sensor == .idle else { return (hello, state, second) }
        let deadline = MonotonicClock.now() + idleWait
        while case let left = deadline - MonotonicClock.now(), left > 0, let line = try c.readLine(timeout: left) {
            if case .state(let next)? = ServerMessage.decode(line) {
                received(next)
                if next.sensor != .idle { return (hello, next, line) }
            }
        }
        return (hello, state, second)
    }

    /// Everything the service publishes, across reconnections, until the consumer stops iterating.
    ///
    /// - Parameters:
    ///   - subscribe: event types to request after each connection; nil keeps the service's default (`state`).
    ///   - initialBackoff: seconds before the first retry; each further failure doubles it up to `maxBackoff`.
    public func events(subscribe: [EventType]? = nil, initialBackoff: Double = 0.1, maxBackoff: Double = 2) -> AsyncStream<ServiceEvent> {
        let path = self.path
        let (stream, continuation) = AsyncStream<ServiceEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let flag = CancelFlag()
        continuation.onTermination = { _ in flag.set() }
        let reader: @Sendable () -> Void = {
            var backoff = initialBackoff
            var reportedOutage = false
            while !flag.isSet {
                let (reason, connected) = self.session(path: path, subscribe: subscribe, flag: flag, continuation: continuation)
                if connected {
                    backoff = initialBackoff
                    reportedOutage = false
                }
                if flag.isSet { break }
                if !reportedOutage {
                    continuation.yield(.disconnected(reason: reason, retryAfter: backoff))
                    reportedOutage = true
                }
                var slept = 0.0
                while slept < backoff && !flag.isSet {
                    usleep(50_000)
                    slept += 0.05
                }
                backoff = min(maxBackoff, backoff * 2)
            }
            continuation.finish()
        }
        // A client without its reader thread would wait forever.
        do { try SystemThread.detached(reader) } catch { fatalError("rotation client: cannot start a thread: \(error)") }
        return stream
    }

    /// One connection to the service at `path`, from connecting to its end or to `flag`: everything it says goes to
    /// `continuation`. Returns why it ended, and whether the service greeted in this client's protocol.
    private func session(path: String, subscribe: [EventType]?, flag: CancelFlag,
                         continuation: AsyncStream<ServiceEvent>.Continuation) -> (reason: String, connected: Bool) {
        var reason = ""
        var connected = false
        do {
            let c = try LineConnection(path: path)
            var greeted = false
            var recordedOnConnection = false
            var lastPreferred: String?
            while true {
                let next: String?
                do { next = try c.readLine(shouldStop: { flag.isSet }) } catch {
                    reason = error.reason
                    break
                }
                guard let line = next else { break }
                guard let message = ServerMessage.decode(line) else { continue }
                var preferredChange: Camera?? = nil
                if case .state(let state) = message {
                    let first = !recordedOnConnection
                    recordedOnConnection = true
                    received(state, newConnection: first)
                    if first || state.preferred != lastPreferred { preferredChange = .some(state.preferredCamera) }
                    lastPreferred = state.preferred
                }
                defer { if let change = preferredChange { continuation.yield(.preferredCamera(change)) } }
                if case .hello(let hello) = message, !greeted {
                    greeted = true
                    guard hello.protocolVersion == Hello.currentProtocol else {
                        reason = "the service speaks protocol \(hello.protocolVersion), this client \(Hello.currentProtocol)"
                        break
                    }
                    connected = true
                    continuation.yield(.connected(path: path, hello: hello, line: line))
                    if let subscribe { try? c.send(ClientCommand.subscribe(subscribe).jsonLine) }
                } else {
                    continuation.yield(.message(message, line: line))
                }
            }
            c.close()
            if reason.isEmpty { reason = greeted ? "the service closed the connection" : "the service did not greet" }
        } catch {
            reason = error.reason
        }
        return (reason, connected)
    }
}

/// A flag set once, from any thread.
final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
