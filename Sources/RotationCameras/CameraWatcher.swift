import CUDev
import Glibc

/// Follows the cameras as they come and go: one look at start-up, then one for each udev event.
///
/// `start(onChange:)` starts a thread of its own that enumerates the `video4linux` devices, reports the
/// inventory, and then sleeps in `poll()` on a udev monitor and a stop pipe. It wakes only when udev announces
/// a `video4linux`, USB or media device being added, changed or removed (or to stop): no timer, so an
/// unchanging system costs nothing. Each wake-up describes the devices named in the events again (all of
/// them after a USB device arrives; none of those below a USB device that left), reads the media graphs
/// again when there are camera sensors, and reports the inventory when it differs from the last one reported.
///
/// Threading contract: `onChange` runs on the watcher's thread, one call at a time, first with the
/// inventory at start-up. `start` and `stop` may be called from any thread but the watcher's own (not from
/// `onChange`). After `stop()` returns, `onChange` is not called again.
public final class CameraWatcher: @unchecked Sendable {
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?
    private var onChange: (CameraInventory) -> Void = { _ in }

    /// Creates a stopped watcher.
    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        stop()
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts watching on a new thread; does nothing if already watching.
    public func start(onChange: @escaping @Sendable (CameraInventory) -> Void) {
        guard thread == nil else { return }
        var byte: UInt8 = 0
        while read(wakeRead, &byte, 1) > 0 {}
        self.onChange = onChange
        var tid = pthread_t()
        let arg = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { arg in
            let watcher = Unmanaged<CameraWatcher>.fromOpaque(arg!).takeRetainedValue()
            watcher.run()
            return nil
        }, arg)
        guard rc == 0 else {
            Unmanaged<CameraWatcher>.fromOpaque(arg).release()
            var inventory = CameraInventory()
            inventory.problems.append(.udev(what: "start the camera thread (\(String(cString: strerror(rc))))"))
            onChange(inventory)
            return
        }
        thread = tid
    }

    /// Stops watching and waits for the thread to end.
    public func stop() {
        guard let tid = thread else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        pthread_join(tid, nil)
        thread = nil
    }

    // MARK: - The watcher's thread

    private func run() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = "rotationd-cam".withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        guard let udev = udev_new() else {
            var inventory = CameraInventory()
            inventory.problems.append(.udev(what: "read udev's device database"))
            onChange(inventory)
            waitForStop()
            return
        }
        defer { udev_unref(udev) }
        // The monitor is listening before the first look, so nothing that happens in between is missed.
        var monitor: OpaquePointer? = udev_monitor_new_from_netlink(udev, "udev")
        if let m = monitor, udev_monitor_filter_add_match_subsystem_devtype(m, "video4linux", nil) < 0
            || udev_monitor_filter_add_match_subsystem_devtype(m, "usb", "usb_device") < 0
            || udev_monitor_filter_add_match_subsystem_devtype(m, "media", nil) < 0
            || udev_monitor_enable_receiving(m) < 0 {
            udev_monitor_unref(m)
            monitor = nil
        }
        defer { if let monitor { udev_monitor_unref(monitor) } }
        let noMonitor: CameraError? = monitor == nil ? .udev(what: "watch udev for cameras being added or removed") : nil

        var known: [String: CameraDiscovery.Finding] = [:]
        for (path, finding) in CameraDiscovery.enumerate(udev) { known[path] = finding }
        var last = CameraDiscovery.assemble(Array(known.values), udev: udev, extra: noMonitor)
        onChange(last)
        guard let monitor else {
            waitForStop()
            return
        }
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: udev_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                let e = errno
                if e == EINTR { continue }
                last.problems.append(.udev(what: "wait for udev events (poll: \(String(cString: strerror(e))))"))
                onChange(last)
                waitForStop()
                return
            }
            if fds[0].revents != 0 { return }
            guard fds[1].revents != 0 else { continue }
            // Events are handled in the order they came: a removal right after an arrival must win.
            while let event = udev_monitor_receive_device(monitor) {
                let path = udev_device_get_syspath(event).map { String(cString: $0) } ?? ""
                let action = udev_device_get_action(event).map { String(cString: $0) } ?? ""
                let subsystem = udev_device_get_subsystem(event).map { String(cString: $0) }
                let usb = subsystem == "usb"
                udev_device_unref(event)
                if subsystem == "media" {
                    // A media device's graph is read afresh for every inventory: nothing to describe.
                    continue
                } else if usb {
                    // A USB device's own event: its removal takes every node below it along; anything else may
                    // bring nodes whose own events are still to come, so look at everything again.
                    if action == "remove" {
                        for knownPath in known.keys where knownPath.hasPrefix(path + "/") { known[knownPath] = nil }
                    } else {
                        known = [:]
                        for (path, finding) in CameraDiscovery.enumerate(udev) { known[path] = finding }
                    }
                } else if action != "remove", let fresh = udev_device_new_from_syspath(udev, path) {
                    // Describe the device afresh from udev's database, which holds every property by now.
                    known[path] = CameraDiscovery.describe(VideoDevice(owning: fresh))
                } else {
                    known[path] = nil
                }
            }
            // A device whose removal was not announced is gone all the same.
            for path in known.keys where access(path, F_OK) != 0 { known[path] = nil }
            let now = CameraDiscovery.assemble(Array(known.values), udev: udev)
            if now != last {
                last = now
                onChange(now)
            }
        }
    }

    private func waitForStop() {
        var p = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        while poll(&p, 1, -1) < 0 && errno == EINTR {}
    }

}
