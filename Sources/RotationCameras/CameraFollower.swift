import CUDev
import Glibc
import RotationSystem

/// Follows the cameras as they come and go: one look at start-up, then one for each udev event.
///
/// `start(onChange:)` starts a thread of its own (a `UDevFollower`) that enumerates the `video4linux` devices, reports
/// the inventory, and then sleeps until udev announces a `video4linux`, USB or media device being added, changed or
/// removed (or to stop): no timer, so an unchanging system costs nothing. Each wake-up describes the devices named in
/// the events again (all of them after a USB device arrives; none of those below a USB device that left), reads the
/// media graphs again when there are camera sensors, and reports the inventory when it differs from the last one
/// reported.
///
/// Threading contract: `onChange` runs on the follower's thread, one call at a time, first with the
/// inventory at start-up. `start` and `stop` may be called from any thread but the follower's own (not from
/// `onChange`). After `stop()` returns, `onChange` is not called again.
public final class CameraFollower: @unchecked Sendable {
    private let follower = UDevFollower(name: "rotationd-cam", matching: [
        UDevMonitor.Match("video4linux"), UDevMonitor.Match("usb", devtype: "usb_device"), UDevMonitor.Match("media"),
    ])

    /// Creates a stopped follower.
    public init() {}

    deinit { stop() }

    /// Starts following on a new thread; does nothing if already following.
    public func start(onChange: @escaping @Sendable (CameraInventory) -> Void) {
        guard !follower.isRunning else { return }
        let cameras = Cameras(onChange: onChange)
        do {
            try follower.start(begin: cameras.begin, onEvents: cameras.follow, onFailure: cameras.failed)
        } catch {
            var inventory = CameraInventory()
            inventory.problems.append(.udev(what: "start the camera thread (\(error))"))
            onChange(inventory)
        }
    }

    /// Stops following and waits for the thread to end.
    public func stop() { follower.stop() }

    // MARK: - The follower's thread

    /// The cameras as the follower's thread knows them, and what it tells the owner.
    private final class Cameras {
        let onChange: (CameraInventory) -> Void
        /// Every video node described so far, by syspath.
        var known: [String: CameraDiscovery.Finding] = [:]
        /// The inventory last reported.
        var last = CameraInventory()

        init(onChange: @escaping (CameraInventory) -> Void) { self.onChange = onChange }

        /// The first look, with the monitor listening already (when udev can be watched).
        func begin(_ monitor: UDevMonitor) {
            guard let udev = monitor.udev else {
                var inventory = CameraInventory()
                inventory.problems.append(.udev(what: "read udev's device database"))
                onChange(inventory)
                return
            }
            let noMonitor: CameraError? = monitor.isListening ? nil : .udev(what: "watch udev for cameras being added or removed")
            for (path, finding) in CameraDiscovery.enumerate(udev) { known[path] = finding }
            last = CameraDiscovery.assemble(Array(known.values), udev: udev, extra: noMonitor)
            onChange(last)
        }

        /// Describes again the devices named in `events`, handled in the order they came (a removal right after an
        /// arrival must win), and reports the inventory when it changed.
        func follow(_ monitor: UDevMonitor, _ events: [UDevMonitor.Event]) {
            guard let udev = monitor.udev else { return }
            for event in events {
                let path = event.syspath
                if event.subsystem == "media" {
                    // A media device's graph is read afresh for every inventory: nothing to describe.
                    continue
                } else if event.subsystem == "usb" {
                    // A USB device's own event: its removal takes every node below it along; anything else may
                    // bring nodes whose own events are still to come, so look at everything again.
                    if event.action == "remove" {
                        for knownPath in known.keys where knownPath.hasPrefix(path + "/") { known[knownPath] = nil }
                    } else {
                        known = [:]
                        for (path, finding) in CameraDiscovery.enumerate(udev) { known[path] = finding }
                    }
                } else if event.action != "remove", let fresh = udev_device_new_from_syspath(udev, path) {
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

        /// Says that udev can no longer be waited for; the thread then waits for the stop.
        func failed(_ error: Errno) {
            last.problems.append(.udev(what: "wait for udev events (poll: \(error))"))
            onChange(last)
        }
    }
}
