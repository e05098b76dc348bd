import RotationSystem

/// Follows the input devices for a tablet-mode switch of the kernel's: the first device other than rotationd's
/// own that reports `SW_TABLET_MODE`, or none.
///
/// A platform driver may register its switch long after boot: intel-vbtn registers "Intel Virtual Switches" only
/// when the firmware sends its first switch event, unless it found two accelerometers. `start(onChange:)` starts
/// a thread (a `UDevFollower` of the `input` subsystem) that looks once, reports what it found, and looks again
/// at each batch of udev's events: no timer, so an unchanging system costs nothing. A device udev said was
/// removed counts as gone until it is added again. `onChange` is called with the first answer and then with each
/// different one.
///
/// Threading contract: `onChange` runs on the follower's thread, one call at a time. `start` and `stop` may be
/// called from any thread but the follower's own. After `stop()` returns, `onChange` is not called again.
public final class KernelSwitchFollower: @unchecked Sendable {
    private let follower = UDevFollower(name: "rotationd-sw", matching: [UDevMonitor.Match("input")])

    /// Creates a stopped follower.
    public init() {}

    deinit { stop() }

    /// The kernel's tablet-mode switch among the input devices now, leaving out those udev said were removed
    /// (`UDevMonitor.removed`), or nil: what the follower reports.
    private static func kernelSwitch(leavingOut removed: Set<String> = []) -> SwitchDescription? {
        UDevDatabase().switches(leavingOut: removed).first { $0.kinds.contains(.tabletMode) }
    }

    /// Starts following on a new thread; false (and nothing started) when no thread or stop pipe could be made.
    @discardableResult
    public func start(onChange: @escaping @Sendable (SwitchDescription?) -> Void) -> Bool {
        guard !follower.isRunning else { return true }
        var last: SwitchDescription?
        do {
            try follower.start(begin: { _ in
                last = KernelSwitchFollower.kernelSwitch()
                onChange(last)
            }, onEvents: { monitor, _ in
                let now = KernelSwitchFollower.kernelSwitch(leavingOut: monitor.removed)
                // The same node is the same switch, whatever its name read while it was being set up.
                if now?.node != last?.node {
                    last = now
                    onChange(now)
                }
            })
        } catch {
            return false
        }
        return true
    }

    /// Stops following and waits for the thread to end.
    public func stop() { follower.stop() }
}
