import CFailSafe
import Glibc

/// The tablet-mode switch's last word when rotationd dies of a signal: a handler in C (`CFailSafe`, the only
/// Swift file that calls it, as its state must exist once) that writes the switch's 0 and its report, pre-built,
/// in one `write()` to the uinput descriptor, records that 0 in the switch's journal, keeps the device for
/// `TabletModeSwitch.readGrace` so that the desktop reads the 0 before the kernel removes it, then hands the
/// signal on to the action it replaced (the Swift runtime's backtracer, a sanitizer's report, or the default
/// action), so the process still dies of it and dumps its core. No Swift code runs in the handler.
///
/// Covered: the signals that end a process with a core (a crash: `SIGSEGV`, `SIGBUS`, `SIGABRT`, `SIGILL`,
/// `SIGFPE`, `SIGTRAP`, `SIGSYS`, and `SIGQUIT`, `SIGXCPU`, `SIGXFSZ`), and `SIGHUP`, which ends a serving
/// rotationd. `SIGTERM` and `SIGINT` are taken by the service's own shutdown, which turns the switch off itself;
/// `SIGKILL` cannot be caught: the journal tells the next run (`TabletModeSwitch`).
enum FailSafeSignals {
    static let crashes: [Int32] = [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGQUIT, SIGXCPU, SIGXFSZ]
    static let signals = crashes + [SIGHUP]

    /// Whether the handler is installed: done once, on first use, with an alternate signal stack for the thread
    /// that installs it (the main thread), so that a stack overflow is handled too. The crash signals are
    /// unblocked there (and so in the threads started after): a parent may leave them blocked, which would keep
    /// a `kill()` pending and let a fault bypass the handler. `SIGHUP` keeps its mask: `--print` takes it as a
    /// stop (`PermanentSubscriber`).
    private static let installed: Bool = {
        let grace = Int(TabletModeSwitch.readGrace * 1e9)
        guard signals.withUnsafeBufferPointer({ rotationd_failsafe_install($0.baseAddress, Int32($0.count), grace) }) == 0 else { return false }
        return crashes.withUnsafeBufferPointer { rotationd_failsafe_unblock($0.baseAddress, Int32($0.count)) } == 0
    }()

    /// Installs the handler (once); false, with errno, when it could not be.
    static func install() -> Bool { installed }

    /// Arms the handler for the switch on the uinput descriptor `fd`, with `journal`'s descriptor (-1 for none)
    /// and the line that records its 0 there.
    static func arm(fd: Int32, journal: Int32, offLine: String) {
        var line = Array(offLine.utf8)
        line.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { rotationd_failsafe_arm(fd, journal, $0.baseAddress, $0.count) }
        }
    }

    /// Disarms the handler: nothing is written any more (before the descriptor is closed).
    static func disarm() {
        rotationd_failsafe_set_on(0)
        rotationd_failsafe_arm(-1, -1, nil, 0)
    }

    /// Tells the handler whether the switch may read 1: set before a 1 is written, cleared after a 0 is.
    static func setOn(_ on: Bool) { rotationd_failsafe_set_on(on ? 1 : 0) }

    /// Gives the calling thread an alternate signal stack unless it has one (one `sigaltstack` call to look):
    /// each thread that reports to the switch, so that its stack overflowing still turns the switch off.
    static func prepareThisThread() {
        if installed { _ = rotationd_failsafe_thread_stack() }
    }
}
