import Foundation
import Testing
import RotationProtocol
@testable import RotationSensors
import TestSupport

/// rotationd as the desktop's tablet-mode switch (`--tablet-mode-switch`): the real `rotationd` makes a
/// `SW_TABLET_MODE` device through the test bed's emulated uinput (`Step.uinput`, answered as
/// `drivers/input/misc/uinput.c` does), and a probe reads the switch back through evdev as libinput would
/// (`Step.readSwitches`), while the posture comes from the emulated convertibles' parts.
@Suite("The tablet-mode switch rotationd makes", .serialized)
struct TabletModeSwitchTests {
    /// A convertible's layout and a fold through it: each step's attributes, the posture line it gives, and
    /// whether the keyboard can be used there (the switch then reads 0).
    struct Fold: Sendable, CustomStringConvertible {
        var fixture: String
        var device: String
        var steps: [(attributes: [String: DriverJSON], posture: String, tabletMode: Bool)]
        var description: String { fixture }
    }

    /// The base's raw counts of `base-display.umockdev` (hwdb frame, 512 counts a g) at a hinge of `hinge`°
    /// with the display upright (`LiveSensorTests.baseAndDisplayPosture`).
    static func base(_ hinge: Double) -> [String: DriverJSON] {
        ["in_accel_x_raw": 0, "in_accel_y_raw": .int(Int((-512 * cos(hinge * Double.pi / 180)).rounded())),
         "in_accel_z_raw": .int(Int((-512 * sin(hinge * Double.pi / 180)).rounded()))]
    }

    /// Checks that each change of the switch after its first value came within 1 s of the posture line that makes it.
    static func expectEachChangeWithItsPosture(_ r: Testbed.Result) {
        let postures = SwitchTests.postures(r)
        for e in r.results.uinputEvents.dropFirst() {
            let line = postures.last { Posture(rawValue: $0.posture)?.isTabletMode == (e.value == 1) && $0.at <= e.at + 1 }
            #expect(line.map { abs(e.at - $0.at) <= 1 } == true, "SW_TABLET_MODE \(e.value) at \(e.at) s, the posture lines: \(postures)")
        }
    }

    static let folds = [
        // Both accelerometers: laptop, stand, tablet, and back through a stand to a laptop.
        Fold(fixture: "base-display.umockdev", device: "iio:device0", steps: [
            (base(90), #""posture":"laptop""#, false),
            (base(210), #""posture":"stand""#, true),
            (base(280), #""posture":"stand","hinge":2[7-8]"#, true),
            (base(350), #""posture":"tablet""#, true),
            (base(280), #""posture":"stand","hinge":2[7-8]"#, true),
            (base(150), #""posture":"laptop""#, false),
        ]),
        // A hinge sensor (hid-sensor-custom-intel-hinge, tenths of a degree): laptop, tablet, laptop.
        Fold(fixture: "hinge-hid.umockdev", device: "iio:device1", steps: [
            (["in_angl0_raw": 1100], #""posture":"laptop""#, false),
            (["in_angl0_raw": 3500], #""posture":"tablet""#, true),
            (["in_angl0_raw": 1100], #""posture":"laptop""#, false),
        ]),
    ]

    @Test("with --tablet-mode-switch and no client, SW_TABLET_MODE read back through evdev follows the posture: 0 in laptop, 1 in stand and tablet; one event per change, and the device is removed when the service stops",
          arguments: folds)
    func followsThePosture(_ fold: Fold) async throws {
        let socket = Testbed.socketPath("tablet-switch")
        var steps: [Step] = [.uinput, .set(fold.device, fold.steps[0].attributes), .start]
        for (n, s) in fold.steps.enumerated() {
            if n > 0 { steps.append(.set(fold.device, s.attributes)) }
            steps.append(.wait(.stdout(s.posture, within: n == 0 ? Tolerance.listing : Tolerance.reply)))
            steps.append(.readSwitches(Step.madeByUInput, [.tabletMode: s.tabletMode]))
        }
        steps.append(.stop)
        let r = try await Testbed.run(devices: [fold.fixture], steps: steps,
                                      arguments: ["--serve", "--socket", socket, "--print", "--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        let created = r.results.uinputCreated
        #expect(created.map(\.name) == ["rotationd tablet-mode switch"] && created.first?.switches == ["tablet-mode"], "\(r.transcript)")
        #expect(r.results.switchReadings.map { $0.states?["tablet-mode"] } == fold.steps.map { $0.tabletMode ? 1 : 0 }, "\(r.transcript)")
        #expect(r.results.switchReadings.allSatisfy { $0.name == "rotationd tablet-mode switch" }, "\(r.transcript)")
        // The first value at registration, then one event per change of value, none for a posture that keeps it.
        var changes: [Int] = [0]
        for s in fold.steps.dropFirst() where (changes.last == 1) != s.tabletMode { changes.append(s.tabletMode ? 1 : 0) }
        #expect(r.results.uinputEvents.map(\.value) == changes, "\(r.transcript)")
        #expect(r.results.uinputEvents.dropFirst().allSatisfy { $0.changed }, "\(r.transcript)")
        #expect(r.results.uinputDestroyed == created.map(\.node), "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("tablet-mode switch: \"rotationd tablet-mode switch\" through /dev/uinput") }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
        // Each change reaches the switch with the posture line that makes it.
        Self.expectEachChangeWithItsPosture(r)
    }

    @Test("where the kernel already has a tablet-mode switch (intel-vbtn), --tablet-mode-switch makes none and says why; the posture still comes from the sensors")
    func refusedBesideTheKernelSwitch() async throws {
        let r = try await Testbed.run(devices: ["base-display.umockdev", "switches.umockdev"], steps: SwitchTests.emulated + [
            .uinput,
            .set("iio:device0", Self.base(90)),
            .start,
            .wait(.stdout(#""posture":"laptop","hinge":(8[5-9]|9[0-5]),"#, within: Tolerance.listing)),
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.results.uinputCreated.isEmpty && r.results.uinputEvents.isEmpty, "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: warning: --tablet-mode-switch: Intel Virtual Switches (/dev/input/event7) already reports SW_TABLET_MODE, so rotationd makes no second switch") },
                "\(r.transcript)")
    }

    @Test("a kernel tablet-mode switch registered while rotationd runs (intel-vbtn registers its own at the first switch event) withdraws rotationd's, said on stderr (the thread that follows the input devices sleeping until then); once it goes away rotationd's comes back reading the posture's state")
    func yieldsToALateKernelSwitch() async throws {
        let kernel = "/sys/devices/platform/INT33D6:00/input/input7"
        let r = try await Testbed.run(devices: ["base-display.umockdev"], steps: [
            .uinput,
            .set("iio:device0", Self.base(210)),
            .start,
            .wait(.stdout(#""posture":"stand""#, within: Tolerance.listing)),
            .readSwitches(Step.madeByUInput, [.tabletMode: true]),
            // Following the input devices costs nothing while none comes or goes.
            .asleep(thread: "rotationd-sw", seconds: 1.5),
            .add("vbtn-switch.umockdev"),
            .wait(.stderr(#"warning: tablet-mode switch: Intel Virtual Switches \(/dev/input/event7\) now reports SW_TABLET_MODE, so rotationd's switch is withdrawn"#)),
            .uevent(kernel + "/event7", .remove), .uevent(kernel, .remove),
            .remove(kernel),
            .wait(.stderr("the kernel's SW_TABLET_MODE device went away; rotationd's switch reports the posture again")),
            .readSwitches(Step.madeByUInput, [.tabletMode: true]),
            .stop,
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        let created = r.results.uinputCreated
        #expect(created.count == 2 && created.allSatisfy { $0.name == "rotationd tablet-mode switch" }, "\(r.transcript)")
        // Withdrawn before the kernel's arrival is logged, made again before its departure is.
        #expect(r.results.uinputDestroyed.count == 2, "\(r.transcript)")
        // The device made again registers with the posture's state, 1 in the stand, and reports nothing more
        // until the stop, which turns it off before it goes (TabletModeSwitchSafetyTests).
        #expect(r.results.uinputEvents.filter { $0.node == created.last?.node }.map(\.value) == [1, 0], "\(r.transcript)")
        #expect(r.results.switchReadings.map { $0.states?["tablet-mode"] } == [1, 1], "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
    }

    @Test("on a plain tablet (no base, no hinge sensor) --tablet-mode-switch makes no switch and says nothing tells the posture; without uinput the error names the module to load; either way the rotation is served")
    func noSwitchWithoutPostureOrUInput() async throws {
        let plain = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .uinput, .start, .wait(.stdout(LiveSensorTests.normal, within: Tolerance.listing)),
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(plain.failure == nil && plain.status == 0, "\(plain.transcript)")
        #expect(plain.results.uinputCreated.isEmpty, "\(plain.transcript)")
        #expect(plain.stderr.contains { $0.hasPrefix("rotationd: warning: --tablet-mode-switch: no base accelerometer and no hinge sensor found") }, "\(plain.transcript)")

        let missing = try await Testbed.run(devices: ["base-display.umockdev"], steps: [
            .set("iio:device0", Self.base(90)),
            .start,
            .wait(.stdout(#""posture":"laptop""#, within: Tolerance.listing)),
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(missing.failure == nil && missing.status == 0, "\(missing.transcript)")
        #expect(missing.stderr.contains { $0.hasPrefix("rotationd: error: --tablet-mode-switch: cannot open /dev/uinput: No such file or directory (load the uinput module (modprobe uinput") },
                "\(missing.transcript)")
    }

    @Test("rotationd --list says whether --tablet-mode-switch would make a switch: one on a convertible with no kernel switch, none beside intel-vbtn's, none on a plain tablet",
          arguments: [(["base-display.umockdev"], "none from the kernel; --tablet-mode-switch would make one that follows the posture"),
                      (["base-display.umockdev", "switches.umockdev"], "the kernel's, Intel Virtual Switches (event7), which the desktop follows; --tablet-mode-switch would make none"),
                      (["polled.umockdev"], "none, and nothing tells the posture; --tablet-mode-switch would make none")])
    func listed(_ devices: [String], _ line: String) async throws {
        let emulated = devices.contains("switches.umockdev") ? SwitchTests.emulated : []
        let r = try await Testbed.run(devices: devices, steps: emulated + [.start, .exit(within: Tolerance.listing)], arguments: ["--list"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stdout.contains { $0.hasPrefix("tablet-mode switch: " + line) }, "\(r.transcript)")
    }

    @Test("discovery leaves rotationd's own switch out: a 'rotationd tablet-mode switch' under /sys/devices/virtual/input reading 1 neither gives the posture nor is listed, nor stops --tablet-mode-switch")
    func ownSwitchLeftOut() async throws {
        let own = "/dev/input/event3"
        let r = try await Testbed.run(devices: ["polled.umockdev", "rotationd-switch.umockdev"], steps: [
            .switches(own, name: "rotationd tablet-mode switch", [.tabletMode: true]),
            .start,
            .wait(.stdout(LiveSensorTests.normal, within: Tolerance.listing)),
        ], arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.events.filter { $0["type"] as? String == "state" }.allSatisfy { $0["posture"] is NSNull }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("already reports SW_TABLET_MODE") }, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains(own) }, "\(r.transcript)")
        let list = try await Testbed.run(devices: ["polled.umockdev", "rotationd-switch.umockdev"], steps: [
            .switches(own, name: "rotationd tablet-mode switch", [.tabletMode: true]),
            .start, .exit(within: Tolerance.listing),
        ], arguments: ["--list"])
        #expect(list.failure == nil && list.status == 0, "\(list.transcript)")
        #expect(!list.stdout.contains { $0.contains(own) || $0.contains("rotationd tablet-mode switch") }, "\(list.transcript)")
    }
}

/// The driver zoo's convertibles folded live, with the switch on: `data/demo-fold-50hz.csv` (closed, laptop,
/// stand, tablet, and back through a stand to a laptop) played through both accelerometers of each layout, the
/// cases side by side.
@Suite("The tablet-mode switch on the driver zoo's convertibles")
struct TabletModeSwitchZooTests {
    static let fold = Testbed.fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("data/demo-fold-50hz.csv").path

    @Test("each two-accelerometer layout folded live gives closed, laptop, stand, tablet, stand, laptop, and SW_TABLET_MODE read back through evdev follows: 0, then 1 from the stand to the stand, then 0",
          arguments: ["bmc150-dual", "dual250e", "cros-ec", "cros-ec-location"])
    func zooFold(_ driver: String) async throws {
        let steps: [Step] = [
            .uinput,
            .start,
            // Closed until rotationd says so, however late a loaded machine starts it.
            .play(Self.fold, seconds: 22.5, holdUntil: .stdout(#""posture":"closed""#, within: Tolerance.slowReply)),
            .wait(.stdout(#""posture":"laptop""#, within: Tolerance.slowReply)),
            .readSwitches(Step.madeByUInput, [.tabletMode: false]),
            .wait(.stdout(#""posture":"stand""#, within: Tolerance.slowReply)),
            .readSwitches(Step.madeByUInput, [.tabletMode: true]),
            .wait(.stdout(#""posture":"tablet""#, within: Tolerance.slowReply)),
            .wait(.stdout(#""posture":"laptop""#, within: Tolerance.slowReply)),
            .readSwitches(Step.madeByUInput, [.tabletMode: false]),
        ]
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print", "--tablet-mode-switch"])
        #expect(r.failure == nil, "\(r.transcript)")
        #expect(r.postures == ["closed", "laptop", "stand", "tablet", "stand", "laptop"], "\(r.transcript)")
        #expect(r.results.uinputEvents.map(\.value) == [0, 1, 0], "\(r.transcript)")
        #expect(r.results.switchReadings.map { $0.states?["tablet-mode"] } == [0, 1, 0], "\(r.transcript)")
        TabletModeSwitchTests.expectEachChangeWithItsPosture(r)
    }
}
