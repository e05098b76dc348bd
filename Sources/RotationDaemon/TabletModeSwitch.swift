import CInput
import Glibc
import RotationProtocol
import RotationSensors
import RotationService
import Synchronization

/// rotationd as the desktop's tablet-mode switch (`--tablet-mode-switch`): a uinput device of its own reporting
/// `SW_TABLET_MODE` from the posture it publishes, 1 in stand, tent and tablet (`Posture.isTabletMode`: the
/// keyboard cannot be used), 0 in laptop and closed.
///
/// On 360° convertibles with two accelerometers the kernel withholds its own switch and leaves the posture to
/// userspace (`drivers/platform/x86/dual_accel_detect.h`); libinput turns the keyboard and touchpad off, and
/// GNOME turns on its rotation and on-screen keyboard, from such a switch. `refusal(_:)` says where none may be
/// made. The device (`SwitchDescription.rotationdSwitchName`, on the virtual bus) is set up when the service
/// starts, so that a missing module or access is said at once, and registered with the first posture known, so
/// that its first state is the right one; after that each change of value is one event and its report. While
/// the posture is unknown (no reading yet, the sensor lost) the switch keeps its last value. The device goes away
/// when the output closes, or with the process. Discovery leaves it out, so rotationd never reads its own output.
/// A kernel switch registered while the service runs (`TabletSwitchWatch`) withdraws the device until it goes.
final class TabletModeSwitch: PublisherOutput, Sendable {
    /// The uinput node of a standard kernel.
    static let uinput = "/dev/uinput"

    private struct Device {
        var fd: Int32
        /// Whether UI_DEV_CREATE has registered it.
        var created = false
        /// The value it reports, while registered.
        var value: Bool?
        /// The tablet mode of the last posture published.
        var wanted: Bool?
        /// The kernel's tablet-mode switch that appeared after the start: while there is one, rotationd's is
        /// withdrawn.
        var kernel: SwitchDescription?
        /// Set once a write or the registration failed (logged): nothing more is tried.
        var failed = false
    }

    private let path: String
    private let device: Mutex<Device>
    private let watch = TabletSwitchWatch()

    /// Why no switch may be made on the machine `inventory` describes, or nil: the kernel already reports
    /// `SW_TABLET_MODE` (a platform driver's switch, which the desktop follows), or nothing tells the posture.
    static func refusal(_ inventory: SensorInventory) -> TabletModeSwitchError? {
        if let kernel = inventory.switches.first(where: { $0.kinds.contains(.tabletMode) }) { return .anotherSwitch(kernel) }
        if inventory.base == nil && inventory.hinge == nil { return .noPostureSource }
        return nil
    }

    /// The switch `--tablet-mode-switch` asks for on this machine, set up on `path`, or nil with why not
    /// logged: a warning where the machine needs none or nothing tells the posture, an error where uinput fails.
    static func make(rate: Double, path: String = TabletModeSwitch.uinput) -> TabletModeSwitch? {
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: rate) } catch {
            Log.warning("--tablet-mode-switch: \(error); no tablet-mode switch is made")
            return nil
        }
        if let why = refusal(inventory) {
            Log.warning("\(why)")
            return nil
        }
        do {
            let made = try TabletModeSwitch(path: path)
            if !made.watch.start(onChange: { [weak made] in made?.follow($0) }) {
                Log.warning("--tablet-mode-switch: cannot start the thread that follows input devices; a kernel tablet-mode switch registered later is not noticed until rotationd restarts")
            }
            Log.info("tablet-mode switch: \"\(SwitchDescription.rotationdSwitchName)\" through \(path), SW_TABLET_MODE 1 in stand, tent and tablet and 0 in laptop and closed, from the posture; the sensors are read with no subscriber too")
            return made
        } catch {
            Log.error("\(error)")
            return nil
        }
    }

    /// Opens `path` (uinput) and declares a device reporting `SW_TABLET_MODE`; it is registered later, with the
    /// first posture published.
    init(path: String = TabletModeSwitch.uinput) throws(TabletModeSwitchError) {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        if let refused = Self.declare(fd, path: path) {
            Glibc.close(fd)
            throw refused
        }
        self.path = path
        device = Mutex(Device(fd: fd))
    }

    /// The setup's ioctls, in the order `rotationd_uinput_setup_switch` numbers them.
    private static let setupSteps = ["UI_SET_EVBIT", "UI_SET_SWBIT", "UI_DEV_SETUP"]

    /// Declares the device on `fd` (uinput at `path`) as reporting `SW_TABLET_MODE`; the step refused, or nil.
    private static func declare(_ fd: Int32, path: String) -> TabletModeSwitchError? {
        var failed: Int32 = 0
        guard rotationd_uinput_setup_switch(fd, SwitchDescription.rotationdSwitchName, Int32(SW_TABLET_MODE), &failed) == 0 else {
            return .refused(step: setupSteps[min(max(Int(failed), 0), 2)], path: path, errno: errno)
        }
        return nil
    }

    /// Reports the posture's tablet mode when it differs from the value reported; registers the device first.
    func publish(_ event: StateEvent) {
        guard let posture = event.state.fold.posture else { return }
        let problem: TabletModeSwitchError? = device.withLock { d in
            d.wanted = posture.isTabletMode
            return apply(&d)
        }
        if let problem { Log.error("\(problem)") }
    }

    /// Follows a kernel switch that comes or goes while the service runs (`TabletSwitchWatch`): withdraws the
    /// device while there is one, and registers it again, in the posture's state, once it has gone.
    private func follow(_ kernel: SwitchDescription?) {
        let (problem, changed): (TabletModeSwitchError?, Bool) = device.withLock { d in
            guard d.kernel != kernel else { return (nil, false) }
            d.kernel = kernel
            return (apply(&d), true)
        }
        if changed {
            if let kernel {
                Log.warning("tablet-mode switch: \(kernel.name) (\(kernel.node)) now reports SW_TABLET_MODE, so rotationd's switch is withdrawn and the desktop follows the kernel's alone; rotationd's comes back if that one goes away")
            } else {
                Log.info("tablet-mode switch: the kernel's SW_TABLET_MODE device went away; rotationd's switch reports the posture again")
            }
        }
        if let problem { Log.error("\(problem)") }
    }

    /// Brings the device in line with `d`: withdrawn while the kernel has a switch, otherwise registered once a
    /// posture is known and reporting its tablet mode. Returns the failure, after which nothing more is tried.
    private func apply(_ d: inout Device) -> TabletModeSwitchError? {
        guard !d.failed else { return nil }
        if d.kernel != nil {
            guard d.created else { return nil }
            // uinput frees a destroyed device: the next one is declared again, ready to be registered.
            _ = rotationd_uinput_destroy(d.fd)
            d.created = false
            d.value = nil
            if let refused = Self.declare(d.fd, path: path) {
                d.failed = true
                return refused
            }
            return nil
        }
        guard let on = d.wanted, d.value != on else { return nil }
        if !d.created {
            guard rotationd_uinput_create(d.fd) == 0 else {
                d.failed = true
                return .refused(step: "UI_DEV_CREATE", path: path, errno: errno)
            }
            d.created = true
        }
        guard rotationd_uinput_report_switch(d.fd, Int32(SW_TABLET_MODE), on ? 1 : 0) == 2 * MemoryLayout<input_event>.size else {
            d.failed = true
            return .refused(step: "a write of SW_TABLET_MODE", path: path, errno: errno)
        }
        d.value = on
        return nil
    }

    /// Stops following the kernel's switches, unregisters the device and closes uinput.
    func close() {
        watch.stop()
        device.withLock { d in
            guard d.fd >= 0 else { return }
            if d.created { _ = rotationd_uinput_destroy(d.fd) }
            Glibc.close(d.fd)
            d.fd = -1
        }
    }
}
