import Foundation
import Testing
import RotationProtocol
import TestSupport

/// The tablet-mode switch rotationd makes fails safe, checked with the real libinput beside it (`Step.libinput`,
/// its udev backend on seat0 as a compositor runs it) and an internal keyboard (`internal-keyboard.umockdev`,
/// `Step.keyboard`): libinput suspends the keyboard while the switch reads 1, and resumes it only on that switch's
/// own 0 event, never because the switch went away. Folded into a stand, rotationd ends each way it can (a stop,
/// an interrupt, a kernel switch appearing, a crash, a kill and a restart), and each time the keyboard comes
/// back: libinput resumes it (opens its node again) before the switch is removed, and a key typed on it reaches
/// libinput.
@Suite("The tablet-mode switch turns the keyboard back on however rotationd ends", .serialized)
struct TabletModeSwitchSafetyTests {
    static let keyboard = "/dev/input/event0"
    static let devices = ["base-display.umockdev", "internal-keyboard.umockdev"]
    static let removed = "^removed event[0-9]+ rotationd tablet-mode switch$"

    /// libinput beside rotationd with the device folded into a stand: the keyboard suspended.
    static let folded: [Step] = [
        .uinput,
        .keyboard(keyboard, name: "AT Translated Set 2 keyboard"),
        .libinput(within: Tolerance.listing),
        .set("iio:device0", TabletModeSwitchTests.base(210)),
        .start,
        .wait(.stdout(#""posture":"stand""#, within: Tolerance.listing)),
        .waitLibinput("^log: event0 +- tablet-mode: suspending device$"),
    ]

    /// Once the switch has gone, a key typed on the keyboard reaches libinput.
    static let typed: [Step] = [
        .waitLibinput(removed),
        .key(keyboard, 30),
        .waitLibinput("^key event0 30 released$"),
    ]

    /// Checks that the keyboard came back before the switch that suspended it went away: libinput resumed it
    /// (and opened its node again) before it removed the switch, and the last event the switch reported before
    /// its device went was 0.
    static func expectKeyboardBack(_ r: Testbed.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        let lib = LibinputLines(r.results)
        let resumed = lib.last("^log: event0 +- tablet-mode: resuming device$")
        let removedAt = lib.first(removed, after: lib.last("^log: event0 +- tablet-mode: suspending device$") ?? -1)
        #expect(resumed != nil && removedAt != nil && resumed! < removedAt!, "libinput: \(lib.lines)\n\(r.transcript)", sourceLocation: sourceLocation)
        #expect(lib.hasOpen(keyboard), "\(r.transcript)", sourceLocation: sourceLocation)
        #expect(!lib.positions("^key event0 30 pressed$").isEmpty, "\(r.transcript)", sourceLocation: sourceLocation)
        for node in r.results.uinputDestroyed {
            let before = r.results.events.prefix { if case .uinputDestroyed(let n) = $0 { n != node } else { true } }
            let last = before.compactMap { if case .uinputEvent(let e) = $0, e.node == node { e.value } else { nil } }.last
            #expect(last == 0, "the last event of \(node) before it went: \(String(describing: last))\n\(r.transcript)", sourceLocation: sourceLocation)
        }
    }

    @Test("stopped while folded (SIGTERM to a serving rotationd, SIGINT to a printing one), the switch reports 0 and keeps its device while libinput reads it: the keyboard is resumed before the switch goes and takes keys again",
          arguments: [("TERM", ["--serve", "--socket", Testbed.socketPath("switch-safe-term"), "--print"]), ("INT", ["--print"])])
    func stopped(_ signal: String, _ arguments: [String]) async throws {
        let r = try await Testbed.run(devices: Self.devices, steps: Self.folded + [.signal(signal), .ended("status 0")] + Self.typed,
                                      arguments: arguments + ["--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        Self.expectKeyboardBack(r)
        #expect(r.stderr.contains { $0.contains("tablet-mode switch: reported 0 before going away") }, "\(r.transcript)")
    }

    @Test("a kernel tablet-mode switch appearing while folded (intel-vbtn) withdraws rotationd's switch only after it reported 0 and libinput read it: the keyboard is resumed and takes keys")
    func kernelSwitchAppears() async throws {
        let r = try await Testbed.run(devices: Self.devices, steps: Self.folded + [
            .add("vbtn-switch.umockdev"),
            .wait(.stderr("now reports SW_TABLET_MODE, so rotationd's switch is withdrawn after reporting 0")),
        ] + Self.typed + [.stop], arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        Self.expectKeyboardBack(r)
    }

    /// In a sanitizer run, the sanitizers' options with their own handling of SIGSEGV off: the SIGSEGV the test
    /// sends is a crash made on purpose, which a sanitizer would otherwise report as its own error (and end the
    /// process with its exit code) once the handler under test has handed the signal on.
    static var sanitizersLeaveSegv: [String: String] {
        var env: [String: String] = [:]
        for name in ["ASAN_OPTIONS", "TSAN_OPTIONS"] {
            if let options = ProcessInfo.processInfo.environment[name] { env[name] = options + ":handle_segv=0" }
        }
        return env
    }

    @Test("crashed while folded (SIGSEGV, SIGABRT), the crash handler reports 0, read back through evdev while the device is still there, before rotationd dies of the signal: libinput resumes the keyboard before the switch goes",
          arguments: ["SEGV", "ABRT"])
    func crashed(_ signal: String) async throws {
        let r = try await Testbed.run(devices: Self.devices, steps: Self.folded + [
            .signal(signal),
            .readSwitches(Step.madeByUInput, [.tabletMode: false], within: Tolerance.serviceStop),
            .ended("signal \(signal)"),
        ] + Self.typed, arguments: ["--print", "--tablet-mode-switch"], environment: Self.sanitizersLeaveSegv)
        #expect(r.failure == nil, "\(r.transcript)")
        Self.expectKeyboardBack(r)
        #expect(r.results.switchReadings.map { $0.states?["tablet-mode"] } == [0], "\(r.transcript)")
    }

    @Test("killed with SIGKILL while folded, the switch goes away at 1 and libinput leaves the keyboard off; the next run, finding 1 in the journal, registers its switch at 1 and reports the laptop's 0 after libinput paired it: the keyboard is back")
    func killedThenRestarted() async throws {
        let r = try await Testbed.run(devices: Self.devices, steps: Self.folded + [
            .signal("KILL"),
            .ended("signal KILL"),
            .waitLibinput(Self.removed),
            .set("iio:device0", TabletModeSwitchTests.base(90)),
            .start,
            .wait(.stdout(#""posture":"laptop""#, within: Tolerance.listing)),
            .waitLibinput("^log: event0 +- tablet-mode: resuming device$"),
            .key(Self.keyboard, 30),
            .waitLibinput("^key event0 30 released$"),
            .stop,
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        let lib = LibinputLines(r.results)
        // libinput's own behaviour: the switch gone at 1 leaves the keyboard off until a switch reports 0.
        let gone = lib.first(Self.removed) ?? 0
        let again = lib.first("^added event[0-9]+ rotationd tablet-mode switch$", after: gone) ?? 0
        #expect(gone < again && lib.positions("tablet-mode: resuming device").allSatisfy { $0 > again }, "\(lib.lines)")
        let second = r.results.uinputCreated.last?.node
        #expect(r.results.uinputCreated.count == 2, "\(r.transcript)")
        #expect(r.results.uinputEvents.filter { $0.node == second }.map(\.value) == [1, 0], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("the last run ended with its switch reading 1") }, "\(r.transcript)")
        #expect(lib.hasOpen(Self.keyboard), "\(r.transcript)")
    }
}
