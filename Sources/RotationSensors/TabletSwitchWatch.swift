import Glibc

/// Follows the input devices for a tablet-mode switch of the kernel's: the first device other than rotationd's
/// own that reports `SW_TABLET_MODE`, or none.
///
/// A platform driver may register its switch long after boot: intel-vbtn registers "Intel Virtual Switches" only
/// when the firmware sends its first switch event, unless it found two accelerometers. `start(onChange:)` starts
/// a thread that looks once, reports what it found, then sleeps in `poll()` on a udev monitor of the `input`
/// subsystem and a stop pipe, and looks again at each event: no timer, so an unchanging system costs nothing. A
/// device udev said was removed counts as gone until it is added again.
/// `onChange` is called with the first answer and then with each different one.
///
/// Threading contract: `onChange` runs on the watch's thread, one call at a time. `start` and `stop` may be
/// called from any thread but the watch's own. After `stop()` returns, `onChange` is not called again.
public final class TabletSwitchWatch: @unchecked Sendable {
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?
    private var onChange: (SwitchDescription?) -> Void = { _ in }

    /// Creates a stopped watch.
    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        stop()
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// The kernel's tablet-mode switch among the input devices now, leaving out those udev said were removed
    /// (`UDevMonitor.removed`), or nil: what the watch reports.
    private static func kernelSwitch(leavingOut removed: Set<String> = []) -> SwitchDescription? {
        UDevDatabase().switches(leavingOut: removed).first { $0.kinds.contains(.tabletMode) }
    }

    /// Starts watching on a new thread; false (and nothing started) when no thread or stop pipe could be made.
    @discardableResult
    public func start(onChange: @escaping @Sendable (SwitchDescription?) -> Void) -> Bool {
        guard thread == nil else { return true }
        guard wakeRead >= 0 else { return false }
        self.onChange = onChange
        var tid = pthread_t()
        let arg = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { arg in
            Unmanaged<TabletSwitchWatch>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, arg)
        guard rc == 0 else {
            Unmanaged<TabletSwitchWatch>.fromOpaque(arg).release()
            return false
        }
        thread = tid
        return true
    }

    /// Stops watching and waits for the thread to end.
    public func stop() {
        guard let tid = thread else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        pthread_join(tid, nil)
        thread = nil
    }

    private func run() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = "rotationd-sw".withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        // Listening before the first look, so that nothing in between is missed.
        let monitor = UDevMonitor(subsystem: "input")
        var last = TabletSwitchWatch.kernelSwitch()
        onChange(last)
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: monitor.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, nfds_t(fds.count), -1) < 0, errno != EINTR { return }
            if fds[0].revents != 0 { return }
            guard fds[1].revents != 0 else { continue }
            monitor.receive()
            let now = TabletSwitchWatch.kernelSwitch(leavingOut: monitor.removed)
            // The same node is the same switch, whatever its name read while it was being set up.
            if now?.node != last?.node {
                last = now
                onChange(now)
            }
        }
    }
}
