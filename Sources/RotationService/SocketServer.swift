import Glibc
import RotationProtocol
import Synchronization
import RotationSystem

/// The JSON-lines socket service: an output that fans each change out to every connected client.
///
/// Changes arrive on an input's thread through `publish`, which only appends to an inbox and wakes the
/// server's own thread; that thread runs a poll loop over non-blocking sockets. Each client has a
/// bounded queue: a reader that falls behind is coalesced to the latest state, and one that reads
/// nothing for `ServerLimits.stuckTimeout` is disconnected, so no client can delay another or the input.
public final class SocketServer: PublisherOutput, @unchecked Sendable {
    /// Connections accepted in one pass of the loop, so a connection storm cannot starve the clients.
    static let acceptsPerPass = 64
    /// The longest sensor description `hello` carries; longer ones keep their end.
    public static let maxSensorDescriptionBytes = 256

    private let listener: ListeningSocket
    let limits: ServerLimits
    private let samplesGroup: UInt32?
    private let notifier: SystemdNotifier?
    let inbox: ServerInbox
    /// The camera memory: each user's preferred camera, written to disk before a `prefer` is answered.
    let store: PreferenceStore
    let sampleSubscribers = Atomic<Int>(0)
    private let connectedCount = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let acceptStop = Atomic<Int>(0) // 0 accepting, 1 asked to stop, 2 listener closed by the loop
    private let loopFailure = Mutex<String?>(nil)
    private var failureObserver: (@Sendable (String) -> Void)?
    private var thread: SystemThread?
    private let sensorName: Mutex<String?>
    private var clientObserver: (@Sendable (Bool) -> Void)?

    // Owned by the event loop's thread.
    var clients: [UInt64: ClientConnection] = [:]
    private var nextKey: UInt64 = 1
    var latest: StateEvent
    /// What each user sees of `latest`.
    let views: UserViews
    /// The number of the latest stored change on disk.
    var durable: UInt64 = 0
    private var listenerPaused = false
    private var listenerClosed = false
    var now = 0.0
    private var refusals = ConnectionRefusals()
    /// Cuts client input into command lines.
    private var reader = CommandReader()

    /// Creates a server on `listener`; call `start()` to begin accepting.
    ///
    /// - Parameters:
    ///   - initial: the state new clients see until the first change is published.
    ///   - samplesGroup: the group whose members may subscribe to raw samples, besides root.
    ///   - notifier: when set, WATCHDOG=1 is sent from the event loop at the interval systemd asked for.
    ///   - store: where users' preferred cameras are kept; nil keeps them for the run only.
    public init(listener: ListeningSocket, identity: Identity, initial: StateEvent, limits: ServerLimits = ServerLimits(),
                samplesGroup: UInt32? = nil, notifier: SystemdNotifier? = nil, store: PreferenceStore? = nil) throws(ServiceError) {
        try SocketServer.checkLineLengths(cameras: SocketServer.widestCameras)
        self.listener = listener
        self.latest = initial
        self.limits = limits
        self.samplesGroup = samplesGroup
        self.notifier = notifier
        self.sensorName = Mutex(identity.sensor.map(SocketServer.bounded))
        let store = store ?? PreferenceStore(directory: nil)
        self.store = store
        views = UserViews(store: store)
        let inbox = try ServerInbox()
        self.inbox = inbox
        store.observeDurable { inbox.post(.durable($0)) }
    }

    /// How many clients are connected.
    public var clientCount: Int { connectedCount.load(ordering: .relaxed) }

    /// Changes what `hello` reports as the sensor (for instance when a live sensor appears or goes away).
    public func setSensorDescription(_ description: String?) {
        let value = description.map(SocketServer.bounded)
        sensorName.withLock { $0 = value }
    }

    /// Registers `observer`, called on the server's thread with true for each client that connects and
    /// false for each that leaves, so an input can run only while someone listens. Call before `start()`.
    /// It is not called once `stopAccepting()` has returned.
    public func observeClients(_ observer: @escaping @Sendable (Bool) -> Void) {
        clientObserver = observer
    }

    /// Registers `observer`, called once on the server's thread if the event loop fails and stops (the
    /// service can then no longer serve anyone and should exit). Call before `start()`.
    public func observeFailure(_ observer: @escaping @Sendable (String) -> Void) {
        failureObserver = observer
    }

    /// Why the event loop failed, or nil while it runs or after a normal stop.
    public var failure: String? { loopFailure.withLock { $0 } }

    /// Starts the event loop on its own thread.
    public func start() {
        thread = SystemThread.start { [self] in self.loop() }
    }

    // MARK: PublisherOutput, called on an input's thread

    /// Queues `event` for every subscriber; returns at once.
    public func publish(_ event: StateEvent) { inbox.post(.state(event)) }

    /// Queues `sample` for the clients subscribed to samples; returns at once.
    public func publish(sample: Sample) { inbox.post(.sample(sample)) }

    /// True while at least one client is subscribed to raw samples.
    public var wantsSamples: Bool { sampleSubscribers.load(ordering: .relaxed) > 0 }

    /// Stops accepting connections: the listening socket is closed (its file removed when this process
    /// created it) and the client observer is not called again. Connected clients are still served.
    /// Returns once the event loop has done so; call before stopping the input, so that no connection
    /// arriving during shutdown starts it again.
    public func stopAccepting() {
        guard acceptStop.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        guard thread != nil else { closeListener(); acceptStop.store(2, ordering: .releasing); return }
        inbox.wake()
        // The loop closes the listener on its next pass; it ends promptly, or has ended already.
        var waited = 0
        while acceptStop.load(ordering: .acquiring) != 2 && waited < 2000 && failure == nil {
            usleep(1000)
            waited += 1
        }
    }

    private func closeListener() {
        guard !listenerClosed else { return }
        listenerClosed = true
        listener.close()
    }

    /// Stops the loop, disconnects every client and closes the listening socket (removing its file when
    /// this process created it). Nothing is published after this.
    public func close() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        inbox.wake()
        thread?.join()
        closeListener()
        inbox.close()
    }

    // MARK: Event loop

    private func loop() {
        var fds: [pollfd] = []
        var owners: [ClientConnection] = []
        now = MonotonicClock.now()
        var resumeListenerAt = Double.infinity
        var nextWatchdog = notifier?.watchdogInterval.map { now + $0 } ?? .infinity
        if nextWatchdog.isFinite { notifier?.send("WATCHDOG=1") }
        while !stopping.load(ordering: .acquiring) {
            if !listenerClosed && acceptStop.load(ordering: .acquiring) == 1 {
                closeListener()
                clientObserver = nil
                acceptStop.store(2, ordering: .releasing)
            }
            // Sleep until something happens. Only a stalled client, a paused listener or the systemd watchdog
            // needs a timer, so an idle service makes no periodic wake-ups.
            let stuckCheck = pollSet(&fds, &owners)
            if listenerPaused && resumeListenerAt == .infinity { resumeListenerAt = now + 0.25 }
            let deadline = min(stuckCheck, resumeListenerAt, nextWatchdog)
            let wait: Int32 = deadline.isFinite ? Int32(min(max(0, deadline - now), 3600) * 1000) + 1 : -1
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), wait) }
            now = MonotonicClock.now()
            if n < 0 {
                let e = Errno.current
                if e == .interrupted { continue }
                pollFailed(e)
                break
            }
            if n > 0 {
                for i in 0..<owners.count {
                    let flags = fds[i + 2].revents
                    let c = owners[i]
                    if flags != 0, clients[c.id] != nil { service(c, flags: flags) }
                }
                if fds[1].revents != 0 { acceptAll() }
                if fds[0].revents != 0 { drainInbox() }
            }
            if now >= stuckCheck { dropStuckClients() }
            if now >= resumeListenerAt {
                resumeListenerAt = .infinity
                listenerPaused = false
            }
            if now >= nextWatchdog {
                notifier?.send("WATCHDOG=1")
                nextWatchdog = now + (notifier?.watchdogInterval ?? .infinity)
            }
        }
        for c in Array(clients.values) { drop(c, reason: nil, log: nil) }
    }

    /// Fills `fds` with what the loop waits on, the inbox's pipe, the listening socket (none while paused or closed)
    /// and every client, and `owners` with the client of each; returns when the first stalled client is due to be
    /// dropped.
    private func pollSet(_ fds: inout [pollfd], _ owners: inout [ClientConnection]) -> Double {
        let readable = Int16(POLLIN), writable = Int16(POLLOUT)
        fds.removeAll(keepingCapacity: true)
        owners.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: inbox.wakeFD, events: readable, revents: 0))
        fds.append(pollfd(fd: listenerPaused || listenerClosed ? -1 : listener.fd, events: readable, revents: 0))
        var stuckCheck = Double.infinity
        for c in clients.values {
            let events = (c.inputClosed ? 0 : readable) | (c.wantsWritable ? writable : 0)
            fds.append(pollfd(fd: c.fd, events: events, revents: 0))
            owners.append(c)
            if let since = c.stalledSince { stuckCheck = min(stuckCheck, since + limits.stuckTimeout) }
        }
        return stuckCheck
    }

    /// The event loop's `poll()` failed with `e`: said, and nothing is accepted or served any more.
    private func pollFailed(_ e: Errno) {
        let why = "the event loop's poll() failed: \(e); no client can be served, so the service stops"
        Log.error(why)
        loopFailure.withLock { $0 = why }
        closeListener()
        acceptStop.store(2, ordering: .releasing)
        failureObserver?(why)
    }

    private func acceptAll() {
        for _ in 0..<SocketServer.acceptsPerPass {
            let fd = accept(listener.fd, nil, nil)
            if fd < 0 {
                let e = Errno.current
                if e == .interrupted || e == .connectionAborted { continue }
                // EWOULDBLOCK is EAGAIN on Linux.
                if e == .wouldBlock { return }
                if [.tooManyOpenFiles, .tooManyOpenFilesInSystem, .noBufferSpace, .noMemory].contains(e) {
                    Log.warning("cannot accept a client: \(e); pausing new connections briefly (raise LimitNOFILE= if this repeats)")
                    listenerPaused = true
                    return
                }
                Log.warning("cannot accept a client: \(e)")
                return
            }
            if clients.count >= limits.maxClients {
                refusals.refuse(fd, maxClients: limits.maxClients, now: now)
                continue
            }
            // Whatever was published before this client connected is taken in first, so that its greeting
            // carries the latest state, not one a change has already replaced (a client connecting just
            // after the service went idle would otherwise be told the rotation from before).
            drainInbox()
            Descriptor.makeNonBlocking(fd)
            var size = limits.sendBuffer
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let cred = PeerCredentials.of(fd)
            let c = ClientConnection(fd: fd, id: nextKey, pid: cred?.pid ?? 0, uid: cred?.uid,
                                     samplesAllowed: cred?.mayReadSamples(group: samplesGroup, fd: fd) ?? false,
                                     burst: limits.commandBurst, now: now)
            nextKey += 1
            clients[c.id] = c
            connectedCount.store(clients.count, ordering: .relaxed)
            clientObserver?(true)
            Log.debug("client connected: pid \(c.pid) uid \(cred.map { String($0.uid) } ?? "?"), \(clients.count) connected")
            c.enqueueReply(hello(for: c).jsonLine)
            c.enqueueReply(views.event(latest, for: c.uid).jsonLine)
            flush(c)
        }
    }

    func hello(for c: ClientConnection) -> Hello {
        Hello(version: ServiceVersion.current, sensor: sensorName.withLock { $0 }, cameras: latest.cameras,
              events: c.events, samplesAllowed: c.samplesAllowed)
    }

    private func drainInbox() {
        let items = inbox.take()
        guard !items.isEmpty else { return }
        var touched: [ClientConnection] = []
        var touchedKeys = Set<UInt64>()
        for item in items {
            switch item {
            case .state(let event):
                latest = event
                for c in clients.values where c.events.contains(.state) {
                    let seen = views.line(event, for: c.uid)
                    c.enqueueState(seen.event, line: seen.line, backlog: limits.stateBacklog)
                    if touchedKeys.insert(c.id).inserted { touched.append(c) }
                }
            case .sample(let sample):
                guard sampleSubscribers.load(ordering: .relaxed) > 0 else { continue }
                let line = Array((SampleMessage(sample: sample).jsonLine + "\n").utf8)
                for c in clients.values where c.events.contains(.samples) {
                    c.enqueueSample(sample, line: line, backlog: limits.sampleBacklog)
                    if touchedKeys.insert(c.id).inserted { touched.append(c) }
                }
            case .durable(let number):
                durable = max(durable, number)
                for c in clients.values where c.isGated && touchedKeys.insert(c.id).inserted { touched.append(c) }
            }
        }
        for c in touched { flush(c) }
        if Log.minimumLevel == .debug { logStages(items, clients: touched.count) }
    }

    /// Logs (at debug level, in µs on CLOCK_MONOTONIC) when this thread woke for each change in `items` and when
    /// its line was written to the clients: the end of the live path's latency budget, after the stages the
    /// input logs under the same sequence number.
    private func logStages(_ items: [ServerInbox.Item], clients: Int) {
        let written = MonotonicClock.now()
        let us = { (v: Double) in "\(Int((v * 1e6).rounded()))" }
        for case .state(let event) in items {
            Log.debug("stages of change \(event.seq): server woke \(us(now)), written \(us(written)) to \(clients) clients")
        }
    }

    /// Writes what the socket takes; adjusts write interest; drops the client when it failed or floods.
    func flush(_ c: ClientConnection) {
        // Replies that wait for the disk are the service's delay, not the client's: they count once they can go.
        if c.queuedBytes > limits.maxQueuedBytes && !c.waitsForDisk(durable: durable) {
            drop(c, reason: ErrorMessage(.flood, "more than \(limits.maxQueuedBytes) bytes of replies are unread; read what you ask for"),
                 log: "sent commands without reading the replies")
            return
        }
        switch c.flush(now: now, durable: durable) {
        case .drained, .gated:
            c.wantsWritable = false
        case .blocked:
            c.wantsWritable = true
        case .failed(let e):
            drop(c, reason: nil, log: e == .brokenPipe || e == .connectionReset ? nil : "write failed: \(e)")
        }
    }

    private func service(_ c: ClientConnection, flags: Int16) {
        if flags & Int16(POLLERR | POLLNVAL) != 0 {
            drop(c, reason: nil, log: nil)
            return
        }
        if flags & Int16(POLLIN) != 0 && !c.inputClosed {
            guard readCommands(c) else { return }
        }
        if flags & Int16(POLLHUP) != 0 {
            drop(c, reason: nil, log: nil)
            return
        }
        if flags & Int16(POLLOUT) != 0 { flush(c) }
    }

    /// Reads and handles what the client sent; false when the client was dropped.
    private func readCommands(_ c: ClientConnection) -> Bool {
        switch reader.read(c, handle: { line in handle(line, from: c) }) {
        case .read, .endOfInput:
            break
        case .failed:
            drop(c, reason: nil, log: nil)
            return false
        case .tooLong:
            drop(c, reason: ErrorMessage(.lineTooLong, "a line is limited to \(ClientCommand.maxLineBytes) bytes; closing"),
                 log: "sent a line longer than \(ClientCommand.maxLineBytes) bytes")
            return false
        case .stopped:
            return false
        }
        flush(c)
        return clients[c.id] != nil
    }

    private func dropStuckClients() {
        for c in Array(clients.values) {
            if let since = c.stalledSince, now - since > limits.stuckTimeout {
                drop(c, reason: ErrorMessage(.stuck, "read nothing of the pending output for \(Int(limits.stuckTimeout)) s; closing (read continuously, or reconnect and ask {\"cmd\":\"state\"})"),
                     log: "read nothing for \(Int(limits.stuckTimeout)) s")
            }
        }
    }

    /// Disconnects `c`; sends `reason` first when that cannot break a line already being written.
    func drop(_ c: ClientConnection, reason: ErrorMessage?, log: String?) {
        guard clients.removeValue(forKey: c.id) != nil else { return }
        if let reason, !c.midLine {
            var text = reason.jsonLine + "\n"
            _ = text.withUTF8 { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        }
        if c.events.contains(.samples) { sampleSubscribers.add(-1, ordering: .relaxed) }
        Glibc.close(c.fd)
        connectedCount.store(clients.count, ordering: .relaxed)
        clientObserver?(false)
        if let log { Log.info("disconnected client pid \(c.pid): it \(log)") }
        else { Log.debug("client pid \(c.pid) disconnected, \(clients.count) connected") }
    }
}
