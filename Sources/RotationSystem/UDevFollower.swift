import Glibc

/// A thread of its own that follows udev: it listens (a `UDevMonitor` of the subsystems it matches), lets its
/// owner look once, then sleeps in `poll()` on the monitor and a stop pipe and hands the owner each batch of
/// events as they come. No timer: an unchanging system costs nothing.
///
/// Threading contract: the closures given to `start` run on the follower's thread, one at a time, the monitor
/// listening before the first; `start` and `stop` may be called from any thread but the follower's own. After
/// `stop()` returns, no closure runs again.
public final class UDevFollower: @unchecked Sendable {
    private let name: String
    private let matching: [UDevMonitor.Match]
    private let stopPipe = WakePipe()
    private var thread: SystemThread?

    /// A stopped follower of the devices `matching` describes, whose thread is named `name`.
    public init(name: String, matching: [UDevMonitor.Match]) {
        self.name = name
        self.matching = matching
    }

    deinit { stop() }

    /// Whether the thread runs.
    public var isRunning: Bool { thread != nil }

    /// Starts the thread, which makes the monitor, calls `begin` with it (the first look), and then, when the
    /// monitor is listening, `onEvents` with the monitor and each batch of events, in the order udev sent them; a
    /// monitor that is not listening (no udev, or no netlink socket) leaves the thread waiting for the stop. `onFailure` is called once if `poll()` fails, after which the thread waits for
    /// the stop. Does nothing if already started; throws when no stop pipe or thread could be made.
    public func start(begin: @escaping (UDevMonitor) -> Void,
                      onEvents: @escaping (UDevMonitor, [UDevMonitor.Event]) -> Void,
                      onFailure: @escaping (Errno) -> Void = { _ in }) throws(Errno) {
        guard thread == nil else { return }
        guard stopPipe.isOpen else { throw .tooManyOpenFiles }
        stopPipe.drain()
        let run = Run(begin: begin, onEvents: onEvents, onFailure: onFailure)
        let pipe = stopPipe, matching = matching
        thread = try SystemThread(named: name) { run.follow(matching, stop: pipe) }
    }

    /// Stops the thread and waits for it to end.
    public func stop() {
        guard let thread else { return }
        stopPipe.signal()
        thread.join()
        self.thread = nil
    }

    /// One run of the thread, with its owner's closures.
    private final class Run: @unchecked Sendable {
        let begin: (UDevMonitor) -> Void
        let onEvents: (UDevMonitor, [UDevMonitor.Event]) -> Void
        let onFailure: (Errno) -> Void

        init(begin: @escaping (UDevMonitor) -> Void, onEvents: @escaping (UDevMonitor, [UDevMonitor.Event]) -> Void,
             onFailure: @escaping (Errno) -> Void) {
            self.begin = begin
            self.onEvents = onEvents
            self.onFailure = onFailure
        }

        func follow(_ matching: [UDevMonitor.Match], stop: WakePipe) {
            // Listening before the first look, so that nothing in between is missed.
            let monitor = UDevMonitor(matching: matching)
            begin(monitor)
            guard monitor.isListening else {
                stop.waitForSignal()
                return
            }
            var fds = [pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: monitor.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                if poll(&fds, nfds_t(fds.count), -1) < 0 {
                    let e = Errno.current
                    if e == .interrupted { continue }
                    onFailure(e)
                    stop.waitForSignal()
                    return
                }
                if fds[0].revents != 0 { return }
                guard fds[1].revents != 0 else { continue }
                onEvents(monitor, monitor.receive())
            }
        }
    }
}
