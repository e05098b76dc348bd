import RotationSensors
import RotationSystem

/// Why `--tablet-mode-switch` makes no switch, or lost the one it made: what stands in the way and how to fix it.
///
/// None of these stops the service: it goes on publishing the rotation and the posture on its socket.
enum TabletModeSwitchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kernel already has a tablet-mode switch: a second one would contradict it.
    case anotherSwitch(SwitchDescription)
    /// Neither a base accelerometer nor a hinge sensor was found: nothing tells the posture, so the switch could
    /// only ever say "laptop".
    case noPostureSource
    /// `/dev/uinput` could not be opened.
    case cannotOpen(path: String, errno: Errno)
    /// The kernel refused one step of making the device (`UI_SET_EVBIT`, `UI_SET_SWBIT`, `UI_DEV_SETUP`,
    /// `UI_DEV_CREATE`) or a write of its state.
    case refused(step: String, path: String, errno: Errno)

    /// A one-line message: what failed, that the service runs on without the switch, and the fix.
    var description: String {
        switch self {
        case .anotherSwitch(let s):
            return "--tablet-mode-switch: \(s.name) (\(s.node)) already reports SW_TABLET_MODE, so rotationd makes no second switch; the desktop follows the kernel's (drop --tablet-mode-switch to silence this)"
        case .noPostureSource:
            return "--tablet-mode-switch: no base accelerometer and no hinge sensor found, so nothing tells the posture and rotationd makes no switch (rotationd --list shows what was found; a base sensor needs ACCEL_LOCATION=base or its label, Docs/posture.md)"
        case .cannotOpen(let path, let e):
            let fix: String
            switch e {
            case .noSuchFileOrDirectory, .noDevice, .noSuchDeviceOrAddress:
                fix = "load the uinput module (modprobe uinput; add uinput to /etc/modules-load.d/ to keep it)"
            case .permissionDenied, .notPermitted:
                fix = "rotationd.service may write it only with the drop-in that turns the switch on, /usr/share/rotationd/tablet-mode-switch.conf, installed in /etc/systemd/system/rotationd.service.d/ (man rotationd, FILES); or run as root"
            default:
                fix = "check that the kernel has uinput (CONFIG_INPUT_UINPUT)"
            }
            return "--tablet-mode-switch: \(SystemError(operation: "open", path: path, errno: e, fix: fix)); no tablet-mode switch is made"
        case .refused(let step, let path, let e):
            return "--tablet-mode-switch: \(path) refused \(step): \(e); no tablet-mode switch is reported (check that the kernel's uinput takes switches: CONFIG_INPUT_UINPUT, kernel 4.5 or later for UI_DEV_SETUP)"
        }
    }
}
