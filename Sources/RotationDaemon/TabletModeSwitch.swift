import CInput
import Dispatch
import Glibc
import RotationProtocol
import RotationSensors
import RotationService
import Synchronization
import RotationSystem

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
/// the posture is unknown (no reading yet, the sensor lost) the switch keeps its value. Discovery leaves it out,
/// so rotationd never reads its own output. A kernel switch registered while the service runs
/// (`KernelSwitchFollower`) withdraws the device until it goes.
///
/// It fails safe: libinput resumes the keyboard it suspended only on that switch's own 0 event, not when the
/// switch goes away, nor when a new one appears reading 0 (Docs/posture.md). So the device never goes away
/// reading 1: the output closing (a stop, `SIGTERM`, `SIGINT`) and a kernel switch appearing report 0 first and
/// keep the device `readGrace` so that the desktop reads it; a crash does the same from a signal handler
/// (`FailSafeSignals`). Each value is recorded in a journal (`SettingsJournal`, kind `switch`) before a 1 and
/// after a 0 is written; a run that finds a dead run's journal ending in 1 (`SIGKILL`, the OOM killer) registers
/// its switch at 1, so that libinput pairs it with the keyboard it left suspended, and reports the posture's
/// value only after `pairingHold`: a 0 then resumes the keyboard.
final class TabletModeSwitch: PublisherOutput, Sendable {
    /// The uinput node of a standard kernel.
    static let uinput = "/dev/uinput"
    /// Seconds the device stays after its 0 before it is removed: the kernel's evdev hands no event to a reader
    /// once the device is gone (`evdev_read` fails with `ENODEV`), so the desktop must read the 0 before.
    static let readGrace = 1.0
    /// Seconds a switch registered after a run that left 1 stays at 1 before it reports the posture: time for
    /// udev to announce it and for the desktop's libinput to open it and pair it, at 1, with the keyboard.
    static let pairingHold = 2.0
    /// The journal's kind: `switch-PID` files beside the sensors' (`SettingsJournal.directory`).
    static let journalKind = "switch"

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
        /// Whether it is to be registered at 1, or is held there, whatever the posture (`pairingHold`).
        var holding: Bool
        /// Set by `close()`: nothing is registered or reported any more.
        var closed = false
        /// Where each value is recorded, or nil without a runtime directory.
        let journal: SettingsJournal?
    }

    private let path: String
    private let device: Mutex<Device>
    private let kernelSwitch = KernelSwitchFollower()

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
            let leftOn = lastRunLeftOn()
            let made = try TabletModeSwitch(path: path, holding: leftOn)
            if !FailSafeSignals.install() {
                Log.warning("--tablet-mode-switch: cannot install the crash handler (\(Errno.current)); if rotationd crashes while the switch reads 1, the keyboard stays off until rotationd starts again")
            }
            if !made.kernelSwitch.start(onChange: { [weak made] in made?.follow($0) }) {
                Log.warning("--tablet-mode-switch: cannot start the thread that follows input devices; a kernel tablet-mode switch registered later is not noticed until rotationd restarts")
            }
            Log.info("tablet-mode switch: \"\(SwitchDescription.rotationdSwitchName)\" through \(path), SW_TABLET_MODE 1 in stand, tent and tablet and 0 in laptop and closed, from the posture; the sensors are read with no subscriber too")
            if leftOn {
                Log.info("tablet-mode switch: the last run ended with its switch reading 1, which leaves the keyboard off; the switch is registered at 1 and reports the posture \(pairingHold) s later, so that a 0 brings the keyboard back")
            }
            return made
        } catch {
            Log.error("\(error)")
            return nil
        }
    }

    /// Whether a run that ended without turning its switch off (killed with `SIGKILL`, by the OOM killer) left it
    /// reading 1: the last value its journal recorded. The journals of ended runs are removed.
    static func lastRunLeftOn() -> Bool {
        guard let directory = SettingsJournal.directory else { return false }
        var on = false
        SettingsJournal.recover(in: directory, kind: journalKind) { entries, _ in
            if entries.last?.value == "1" { on = true }
        }
        return on
    }

    /// The journal's record of the switch reporting `on`.
    private static func entry(_ on: Bool) -> SettingsJournal.Entry {
        SettingsJournal.Entry(id: "SW_TABLET_MODE", name: SwitchDescription.rotationdSwitchName, file: uinput, value: on ? "1" : "0")
    }

    /// Opens `path` (uinput) and declares a device reporting `SW_TABLET_MODE`; it is registered later, with the
    /// first posture published, at 1 whatever the posture when `holding` (a run before left it at 1).
    init(path: String = TabletModeSwitch.uinput, holding: Bool = false) throws(TabletModeSwitchError) {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: .current) }
        if let refused = Self.declare(fd, path: path) {
            Glibc.close(fd)
            throw refused
        }
        self.path = path
        let journal = SettingsJournal.directory.map {
            SettingsJournal(directory: $0, kind: Self.journalKind,
                            loss: "the tablet-mode switch's value is not recorded, so after rotationd is killed while it reads 1 the next run cannot bring the keyboard back")
        }
        device = Mutex(Device(fd: fd, holding: holding, journal: journal))
    }

    /// The setup's ioctls, in the order `rotationd_uinput_setup_switch` numbers them.
    private static let setupSteps = ["UI_SET_EVBIT", "UI_SET_SWBIT", "UI_DEV_SETUP"]

    /// Declares the device on `fd` (uinput at `path`) as reporting `SW_TABLET_MODE`; the step refused, or nil.
    private static func declare(_ fd: Int32, path: String) -> TabletModeSwitchError? {
        var failed: Int32 = 0
        guard rotationd_uinput_setup_switch(fd, SwitchDescription.rotationdSwitchName, Int32(SW_TABLET_MODE), &failed) == 0 else {
            return .refused(step: setupSteps[min(max(Int(failed), 0), 2)], path: path, errno: .current)
        }
        return nil
    }

    /// Reports the posture's tablet mode when it differs from the value reported; registers the device first.
    func publish(_ event: StateEvent) {
        guard let posture = event.state.fold.posture else { return }
        FailSafeSignals.prepareThisThread()
        let problem: TabletModeSwitchError? = device.withLock { d in
            d.wanted = posture.isTabletMode
            return apply(&d)
        }
        if let problem { Log.error("\(problem)") }
    }

    /// Follows a kernel switch that comes or goes while the service runs (`KernelSwitchFollower`): withdraws the
    /// device while there is one, 0 reported and read first, and registers it again, in the posture's state, once
    /// it has gone.
    private func follow(_ kernel: SwitchDescription?) {
        FailSafeSignals.prepareThisThread()
        let (changed, turnedOff, problem): (Bool, Bool, TabletModeSwitchError?) = device.withLock { d in
            guard d.kernel != kernel else { return (false, false, nil) }
            d.kernel = kernel
            if kernel == nil { return (true, false, apply(&d)) }
            let (wrote, problem) = turnOff(&d)
            return (true, wrote, problem)
        }
        if let problem { Log.error("\(problem)") }
        guard changed else { return }
        guard let kernel else {
            Log.info("tablet-mode switch: the kernel's SW_TABLET_MODE device went away; rotationd's switch reports the posture again")
            return
        }
        if turnedOff { Self.waitForReaders() }
        if let problem = device.withLock({ d in d.kernel != nil ? withdraw(&d) : nil }) { Log.error("\(problem)") }
        Log.warning("tablet-mode switch: \(kernel.name) (\(kernel.node)) now reports SW_TABLET_MODE, so rotationd's switch is withdrawn\(turnedOff ? " after reporting 0" : "") and the desktop follows the kernel's alone; rotationd's comes back if that one goes away")
    }

    /// Brings the device in line with `d`: nothing while the kernel has a switch or after `close()`, otherwise
    /// registered once a posture is known (at 1 while `holding`) and reporting its tablet mode. Returns the
    /// failure, after which nothing more is tried.
    private func apply(_ d: inout Device) -> TabletModeSwitchError? {
        guard !d.failed, !d.closed, d.kernel == nil, let on = d.wanted else { return nil }
        if !d.created {
            guard rotationd_uinput_create(d.fd) == 0 else {
                d.failed = true
                return .refused(step: "UI_DEV_CREATE", path: path, errno: .current)
            }
            d.created = true
            FailSafeSignals.arm(fd: d.fd, journal: d.journal?.descriptor ?? -1, offLine: Self.entry(false).line)
            if d.holding {
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.pairingHold) { [weak self] in self?.endHold() }
                return report(true, &d)
            }
        }
        guard !d.holding, d.value != on else { return nil }
        return report(on, &d)
    }

    /// Writes `on` and its report; a 1 is recorded (and the crash handler told) before it is written, a 0 after.
    private func report(_ on: Bool, _ d: inout Device) -> TabletModeSwitchError? {
        if on {
            d.journal?.record(Self.entry(true))
            FailSafeSignals.setOn(true)
        }
        guard rotationd_uinput_report_switch(d.fd, Int32(SW_TABLET_MODE), on ? 1 : 0) == 2 * MemoryLayout<input_event>.size else {
            d.failed = true
            return .refused(step: "a write of SW_TABLET_MODE", path: path, errno: .current)
        }
        if !on {
            FailSafeSignals.setOn(false)
            d.journal?.record(Self.entry(false))
        }
        d.value = on
        return nil
    }

    /// Ends the hold at 1 of a switch registered after a run that left 1: it reports the posture from now on.
    private func endHold() {
        FailSafeSignals.prepareThisThread()
        let (problem, resumed): (TabletModeSwitchError?, Bool) = device.withLock { d in
            d.holding = false
            let problem = apply(&d)
            return (problem, d.value == false)
        }
        if let problem { Log.error("\(problem)") }
        if resumed { Log.info("tablet-mode switch: reported the posture's 0 after holding 1, so that libinput resumes the keyboard the last run left off") }
    }

    /// Reports 0 if the device is registered and may read 1; whether it wrote, and the failure.
    private func turnOff(_ d: inout Device) -> (Bool, TabletModeSwitchError?) {
        guard d.created, !d.failed, d.value != false else { return (false, nil) }
        return (true, report(false, &d))
    }

    /// Sleeps `readGrace`: the device stays while the desktop reads its 0.
    private static func waitForReaders() { MonotonicClock.sleep(readGrace) }

    /// Unregisters the device (reading 0 by now) and declares it again, ready to be registered.
    private func withdraw(_ d: inout Device) -> TabletModeSwitchError? {
        guard d.created, !d.closed else { return nil }
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

    /// Stops following the kernel's switches, reports 0 and lets the desktop read it if the switch may read 1,
    /// then unregisters the device, closes uinput and removes the journal.
    func close() {
        kernelSwitch.stop()
        let (turnedOff, problem): (Bool, TabletModeSwitchError?) = device.withLock { d in
            d.closed = true
            return turnOff(&d)
        }
        if let problem { Log.error("\(problem)") }
        if turnedOff {
            Log.info("tablet-mode switch: reported 0 before going away, so that the desktop turns the keyboard back on")
            Self.waitForReaders()
        }
        device.withLock { d in
            FailSafeSignals.disarm()
            guard d.fd >= 0 else { return }
            if d.created { _ = rotationd_uinput_destroy(d.fd) }
            Glibc.close(d.fd)
            d.fd = -1
            d.journal?.clear()
        }
    }
}
