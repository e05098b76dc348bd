import Foundation
import Testing
@testable import RotationSensors
import TestSupport

/// The kernel's tablet-mode and lid switches read through evdev (`InputSwitches`): the real `rotationd` against
/// `Tests/fixtures/switches.umockdev`, intel-vbtn's "Intel Virtual Switches" (`SW_TABLET_MODE`) and the ACPI
/// "Lid Switch" (`SW_LID`) beside a display accelerometer, their ioctls and events emulated by the test
/// bed's `switches` and `switch` steps.
@Suite("Tablet-mode and lid switches read live", .serialized)
struct SwitchTests {
    static let tablet = "/dev/input/event7"
    static let lid = "/dev/input/event0"
    static let emulated: [Step] = [
        .switches(tablet, name: "Intel Virtual Switches", [.tabletMode: false]),
        .switches(lid, name: "Lid Switch", [.lid: false]),
    ]

    /// Each state line's posture, each change once, with when its line arrived.
    static func postures(_ r: Testbed.Result) -> [(posture: String, at: Double)] {
        var out: [(posture: String, at: Double)] = []
        for line in r.results.output("stdout") {
            guard let e = Testbed.Result.object(line.line), let p = e["posture"] as? String, p != out.last?.posture else { continue }
            out.append((p, line.at))
        }
        return out
    }

    /// A display accelerometer and how it sleeps while still: the line that says it does, and the trace it plays.
    struct StillSensor: Sendable, CustomStringConvertible {
        var fixture: String
        var still: String
        var played: Bool
        var description: String { fixture }
    }

    static let stillSensors = [
        // Raw reads only: read once every still interval.
        StillSensor(fixture: "polled.umockdev", still: "iio:device0: the device is still: reading it every", played: false),
        // Its motion event armed: without the switches' descriptor in the wait, only the safety read (10 s) would
        // see a switch change.
        StillSensor(fixture: "zoo/kxcjk-1013.umockdev", still: "iio:device0: the device is still: watching for motion with its", played: true),
    ]

    @Test("switches changed while the display lies still (a sensor watched by its motion event sleeps on, switches and all, for 3 s): laptop, tablet when tablet mode turns on, closed with the lid shut, tablet once it opens, laptop when tablet mode turns off; each within 1 s of its event, with no hinge",
          arguments: stillSensors)
    func switchesWhileStill(_ sensor: StillSensor) async throws {
        let trace = try DriverZooTests.PosesTrace(holds: [40])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let play: [Step] = sensor.played ? [.play(file.path, seconds: trace.length - 0.2)] : []
        let r = try await Testbed.run(devices: [sensor.fixture, "switches.umockdev"], steps: Self.emulated + [.start] + play + [
            .wait(.stdout(#""posture":"laptop","hinge":null,"#, within: Tolerance.tracePose)),
            .wait(.stderr(sensor.still, within: Tolerance.tracePose)),
        ] + (sensor.played ? [.asleep(thread: "rotationd-iio", seconds: 3)] : []) + [
            .flip(Self.tablet, .tabletMode, true),
            .wait(.stdout(#""posture":"tablet","hinge":null,"#)),
            .flip(Self.lid, .lid, true),
            .wait(.stdout(#""posture":"closed","hinge":null,"#)),
            .flip(Self.lid, .lid, false),
            .wait(.stdout(#""posture":"tablet","hinge":null,"#)),
            .flip(Self.tablet, .tabletMode, false),
            .wait(.stdout(#""posture":"laptop","hinge":null,"#)),
        ], arguments: ["--print", "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let seen = Self.postures(r)
        #expect(seen.map(\.posture) == ["laptop", "tablet", "closed", "tablet", "laptop"], "\(r.transcript)")
        let changes = r.results.switchChanges
        #expect(changes.count == 4, "\(r.transcript)")
        if seen.count == 5 && changes.count == 4 {
            let latencies = zip(changes, seen.dropFirst()).map { $1.at - $0.at }
            #expect(latencies.allSatisfy { $0 >= 0 && $0 <= 1 }, "from each switch event to its posture: \(latencies) s")
        }
        #expect(r.rotations == [0], "\(r.transcript)")
        #expect(r.events.filter { $0["type"] as? String == "state" }.allSatisfy { $0["hinge"] is NSNull }, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer")
            && $0.contains("SW_TABLET_MODE of Intel Virtual Switches (\(Self.tablet)) read for the posture")
            && $0.contains("SW_LID of Lid Switch (\(Self.lid)) read for the posture") }, "\(r.transcript)")
    }

    @Test("a tablet-mode switch already on when the service starts gives tablet from the first posture on (EVIOCGSW), laptop never; --record writes both switches' columns")
    func stateAtStart() async throws {
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-switches-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        let r = try await Testbed.run(devices: ["polled.umockdev", "switches.umockdev"], steps: [
            .switches(Self.tablet, name: "Intel Virtual Switches", [.tabletMode: true]),
            .switches(Self.lid, name: "Lid Switch", [.lid: false]),
            .start,
            .wait(.stdout(#""rotation":0,.*"posture":"tablet","hinge":null,"#, within: Tolerance.listing)),
            .stop,
        ], arguments: ["--print", "--record", csv.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(Self.postures(r).map(\.posture) == ["tablet"], "\(r.transcript)")
        let states = r.events.filter { $0["type"] as? String == "state" }
        let first = try #require(states.firstIndex { $0["rotation"] is Int }, "\(r.transcript)")
        #expect(states[first]["posture"] as? String == "tablet", "the first state with a rotation: \(states[first])")
        // The recording carries both switches on every row: tablet mode on, the lid open.
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "t,x,y,z,tablet_mode,lid_closed", "\(lines.prefix(2))")
        #expect(lines.count > 1 && lines.dropFirst().allSatisfy { $0.hasSuffix(",1,0") }, "\(lines.prefix(4))")
    }

    @Test("a tablet-mode switch registered while the service runs (intel-vbtn registers its own at the firmware's first switch event) is read from then on: a plain tablet gets tablet, then laptop as the switch turns off; once removed it is no longer read")
    func switchRegisteredWhileRunning() async throws {
        let input = "/sys/devices/platform/INT33D6:00/input/input7"
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(#""rotation":0,.*"posture":null"#, within: Tolerance.listing)),
            .wait(.stderr("iio:device0: the device is still: reading it every", within: Tolerance.tracePose)),
            // The node's ioctls are answered before the device is added: adding it announces it (an add event
            // for input7 and for event7), and rotationd opens the node and asks EVIOCGSW at once.
            .switches(Self.tablet, name: "Intel Virtual Switches", [.tabletMode: true]),
            .add("vbtn-switch.umockdev"),
            .wait(.stdout(#""posture":"tablet","hinge":null,"#)),
            .flip(Self.tablet, .tabletMode, false),
            .wait(.stdout(#""posture":"laptop","hinge":null,"#)),
            .uevent(input + "/event7", .remove), .uevent(input, .remove),
            .remove(input),
            .wait(.stderr("/dev/input/event7 \\(Intel Virtual Switches\\) was removed: its switches are no longer read")),
            .stop,
        ], arguments: ["--print", "--verbose"])
        #expect(r.failure == nil, "\(r.transcript)")
        #expect(Self.postures(r).map(\.posture) == ["tablet", "laptop"], "\(r.transcript)")
        #expect(r.stderr.contains("rotationd: info: /dev/input/event7 (Intel Virtual Switches) appeared: its SW_TABLET_MODE is read for the posture"),
                "\(r.transcript)")
        #expect(r.rotations == [0], "\(r.transcript)")
    }

    @Test("rotationd --list names each switch device, its node and the switches it reports, and says the switches are the posture's source")
    func listing() async throws {
        let r = try await Testbed.run(devices: ["polled.umockdev", "switches.umockdev"], steps: [
            .start, .wait(.stdout("^posture: ", within: Tolerance.listing)),
        ], arguments: ["--list"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stdout.contains("event0: Lid Switch (switch, /dev/input/event0)"), "\(r.transcript)")
        #expect(r.stdout.contains("event7: Intel Virtual Switches (switch, /dev/input/event7)"), "\(r.transcript)")
        #expect(r.stdout.contains("  reports: SW_TABLET_MODE"), "\(r.transcript)")
        #expect(r.stdout.contains("  reports: SW_LID"), "\(r.transcript)")
        #expect(r.stdout.contains("posture: from the switches SW_LID (event0), SW_TABLET_MODE (event7), used; no hinge sensor and no base accelerometer"),
                "\(r.transcript)")
    }

    @Test("a switch node the service's user cannot open: one warning naming the node and the fix, and the service runs on without a posture",
          .enabled(if: geteuid() == 0, "needs root to start rotationd as nobody"))
    func unreadableNode() async throws {
        let r = try await Testbed.run(devices: ["polled.umockdev", "switches.umockdev"], steps: Self.emulated + [
            // The accelerometer's node is the user's, as the udev rule makes it; the switches' stay root's (0600).
            .chown("dev/iio:device0", "nobody:nogroup"),
            .chmod("dev/input/event7", "600"),
            .chmod("dev/input/event0", "600"),
            .start,
            .wait(.stdout("\"rotation\":0,", within: Tolerance.listing)),
            .flip(Self.tablet, .tabletMode, true),
            // A time, not a wait: the switch the service cannot read changes, and nothing follows.
            .sleep(1),
            .alive,
        ], arguments: ["--print"], user: "nobody:nogroup")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let warnings = r.stderr.filter { $0.contains("cannot open /dev/input/event7") }
        #expect(warnings == ["rotationd: warning: cannot open /dev/input/event7: Permission denied (the group rotationd reads a switch's node once udev has applied 60-rotationd.rules to it (udevadm trigger), or run as root); the SW_TABLET_MODE of Intel Virtual Switches is not read for the posture"],
                "\(r.transcript)")
        #expect(r.events.filter { $0["type"] as? String == "state" }.allSatisfy { $0["posture"] is NSNull }, "\(r.transcript)")
    }

    @Test("a capabilities/sw attribute's words, most significant first, give the switch codes; a device with neither switch is none")
    func capabilities() {
        #expect(SwitchDescription.codes("2") == [1])
        #expect(SwitchDescription.codes("1 0") == [64])
        #expect(SwitchDescription.codes("3\n") == [0, 1])
        #expect(SwitchDescription.codes("zz").isEmpty)
        #expect(SwitchDescription(node: "/dev/input/event3", sysname: "event3", name: "ThinkPad Extra Buttons", capabilities: "a")?.kinds == [.tabletMode])
        #expect(SwitchDescription(node: "/dev/input/event4", sysname: "event4", name: "Headphone jack", capabilities: "4") == nil)
    }
}
