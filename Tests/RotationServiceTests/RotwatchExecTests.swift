import Foundation
import RotationEngine
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// `rotwatch --exec`: the command runs for each change of the rotation, one run at a time, with the rotation's
/// names in its environment.
@Suite("rotwatch --exec")
struct RotwatchExecTests {
    /// What the command writes for a rotation: the five variables, space-separated.
    static let printVariables = #"printf '%s %s %s %s %s\n' "$ROTATIOND_ROTATION" "$ROTATIOND_ORIENTATION" "$ROTATIOND_TRANSFORM" "$ROTATIOND_SWAY_TRANSFORM" "$ROTATIOND_XRANDR""#

    /// The line `printVariables` must write for each rotation: wl_output transforms count counter-clockwise,
    /// sway's clockwise, and xrandr's left is counter-clockwise.
    static let expectedVariables = [
        0: "0 normal normal normal normal",
        90: "90 left-up 90 270 left",
        180: "180 bottom-up 180 180 inverted",
        270: "270 right-up 270 90 right",
    ]

    /// A state line with the given rotation, tilt, flatness and camera list.
    static func state(seq: Int, rotation: Int?, tilt: String? = "vertical", flat: Bool = false, sensor: String = "ok",
                      cameras: String = "", posture: String? = nil, hinge: Int? = nil) -> String {
        let names = [0: "normal", 90: "left-up", 180: "bottom-up", 270: "right-up"]
        let r = rotation.map(String.init) ?? "null", o = rotation.flatMap { names[$0] }.map { "\"\($0)\"" } ?? "null"
        let t = tilt.map { "\"\($0)\"" } ?? "null"
        return #"{"type":"state","seq":"# + "\(seq)" + #","t":"# + "\(Double(seq) / 10)" + #","rotation":"# + r
            + #","orientation":"# + o + #","tilt":"# + t + #","flat":"# + "\(flat)" + #","inputs":"accel","sensor":""#
            + sensor + #"","posture":"# + (posture.map { "\"\($0)\"" } ?? "null") + #","hinge":"#
            + (hinge.map(String.init) ?? "null") + #","cameras":["# + cameras + "]}"
    }

    @Test("a change of a convertible's posture runs the command with ROTATIOND_POSTURE; the hinge alone does not")
    func postureChangesRun() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let states = [
            Self.state(seq: 1, rotation: 0),
            Self.state(seq: 2, rotation: 0, posture: "laptop", hinge: 110),
            Self.state(seq: 3, rotation: 0, posture: "laptop", hinge: 130),
            Self.state(seq: 4, rotation: 0, posture: "stand", hinge: 280),
            Self.state(seq: 5, rotation: 0, posture: "tablet", hinge: 355),
            Self.state(seq: 6, rotation: 90, posture: "tablet", hinge: 355),
            Self.state(seq: 7, rotation: 90, posture: "tablet", hinge: nil),
        ]
        let service = try Self.service(states, pause: 0.3, socket: socket, in: dir)
        let log = dir.path("runs")
        let command = #"echo "$ROTATIOND_ROTATION $ROTATIOND_POSTURE" >> "# + log
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket, "--exec", command], in: dir, tag: "exec")
        let expected = ["0 unknown", "0 laptop", "0 stand", "0 tablet", "90 tablet"]
        #expect(watch.waitUntil(timeout: Tolerance.toolRun) { Self.lines(log).count >= expected.count }, "\(Self.lines(log))")
        // A time, not a wait: for a wrong run (the hinge-only changes) to show.
        usleep(800_000)
        #expect(Self.lines(log) == expected)
        watch.stop()
        service.stop()
    }

    /// A scripted service sending the hello and then `states`, `pause` seconds apart.
    static func service(_ states: [String], pause: Double, socket: String, in dir: ScratchDirectory) throws -> ChildProcess {
        try ClientToolsTests.scriptedService(socket: socket, lines: ([ClientToolsTests.helloLine] + states).map { "b'\($0)\\n'" },
                                             pause: pause, in: dir, tag: "svc")
    }

    /// The lines of a file the command appends to.
    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("the command runs for each rotation of a served replay, in order, with its rotation, orientation, transforms and xrandr name")
    func followsServedReplay() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 1, count: 4, hold: 0.6)
        // The rotations the service decides, in order: the printed replay's changes of rotation.
        var expected: [Int] = []
        for line in try ServiceRun.referenceLines(trace: trace, in: dir) {
            if let r = JSONLine.int(line, "rotation"), r != expected.last { expected.append(r) }
        }
        try #require(expected == [0, 90, 180, 270, 0], "the trace turns through every rotation: \(expected)")
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let log = dir.path("runs")
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", run.socket, "--exec", "\(Self.printVariables) >> \(log)"],
                                     in: dir, tag: "exec")
        #expect(watch.waitUntil(timeout: Tolerance.replayRun) { Self.lines(log).count >= expected.count }, "\(Self.lines(log)) \(watch.stderr)")
        #expect(run.child.waitForLog("replay finished", timeout: Tolerance.replayRun))
        // A time, not a wait: for a wrong run to show.
        usleep(300_000)
        #expect(Self.lines(log) == expected.map { Self.expectedVariables[$0]! })
        #expect(watch.isRunning, "rotwatch --exec keeps running")
        #expect(watch.stdout.isEmpty, "no state lines of rotwatch's own: \(watch.stdout)")
        watch.stop()
        #expect(run.child.stop() == 0)
    }

    @Test("changes during a slow run are coalesced: the latest runs next, and not when it is the rotation just run")
    func coalescesChangesDuringARun() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        // 0.3 s apart: the run for 0 takes 2 s, while 90, 180 and 270 come; 270 runs next. Then 0 again (2 s),
        // during which 90 and then 0 come: the latest is the rotation just run, so nothing follows.
        let rotations = [0, 90, 180, 270, 270, 270, 270, 270, 270, 0, 90, 0, 0]
        let states = rotations.enumerated().map { Self.state(seq: $0.offset + 1, rotation: $0.element) }
        let service = try Self.service(states, pause: 0.3, socket: socket, in: dir)
        let log = dir.path("runs")
        let command = #"echo "start $ROTATIOND_ROTATION" >> "# + log + #"; [ "$ROTATIOND_ROTATION" = 0 ] && sleep 2; echo "end $ROTATIOND_ROTATION" >> "# + log
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket, "--exec", command], in: dir, tag: "exec")
        let expected = ["start 0", "end 0", "start 270", "end 270", "start 0", "end 0"]
        #expect(watch.waitUntil(timeout: Tolerance.toolRun) { Self.lines(log).count >= expected.count }, "\(Self.lines(log))")
        // A time, not a wait: for a wrong run to show.
        usleep(1_000_000)
        #expect(Self.lines(log) == expected, "one run at a time, the latest pending rotation next")
        #expect(!watch.stderr.contains("the command for"), "no run failed: \(watch.stderr)")
        watch.stop()
        service.stop()
    }

    @Test("a command that fails or is killed is reported on standard error with its status, and rotwatch goes on")
    func failingCommandIsReported() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let states = [0, 90, 180, 270].enumerated().map { Self.state(seq: $0.offset + 1, rotation: $0.element) }
        let service = try Self.service(states, pause: 0.4, socket: socket, in: dir)
        let log = dir.path("runs")
        let command = #"echo "$ROTATIOND_ROTATION" >> "# + log + #"; case $ROTATIOND_ROTATION in 90) exit 3 ;; 180) kill -9 $$ ;; esac"#
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket, "--exec", command], in: dir, tag: "exec")
        #expect(watch.waitUntil(timeout: Tolerance.toolRun) { Self.lines(log).count >= 4 }, "\(Self.lines(log)) \(watch.stderr)")
        #expect(Self.lines(log) == ["0", "90", "180", "270"])
        #expect(watch.waitForLog("the command for left-up (90°) exited with status 3", timeout: Tolerance.reply), "\(watch.stderr)")
        #expect(watch.stderr.contains("the command for bottom-up (180°) was killed by signal 9"), "\(watch.stderr)")
        #expect(!watch.stderr.contains("normal (0°)") && !watch.stderr.contains("right-up (270°)"), "only the failures: \(watch.stderr)")
        #expect(watch.isRunning, "rotwatch goes on after a failing command")
        watch.stop()
        service.stop()
    }

    @Test("changes of the tilt, the flatness or the cameras alone do not run the command, nor an unknown rotation")
    func onlyRotationChangesRun() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let camera = #"{"name":"front","facing":"front","mount":0,"device":"/dev/video0","model":null,"source":{"facing":"udev","mount":"default"},"capture":270,"exif":8}"#
        let states = [
            Self.state(seq: 0, rotation: nil, tilt: nil, sensor: "idle"),
            Self.state(seq: 1, rotation: nil, tilt: "vertical"),
            Self.state(seq: 2, rotation: 90),
            Self.state(seq: 3, rotation: 90, tilt: "tilted-up"),
            Self.state(seq: 4, rotation: 90, tilt: "face-up", flat: true),
            Self.state(seq: 5, rotation: 90, tilt: "face-down", flat: true),
            Self.state(seq: 6, rotation: 90, tilt: "tilted-down"),
            Self.state(seq: 7, rotation: 90, cameras: camera),
            Self.state(seq: 8, rotation: 90, sensor: "lost"),
            Self.state(seq: 9, rotation: nil, tilt: nil, sensor: "idle"),
            Self.state(seq: 10, rotation: 90),
            Self.state(seq: 11, rotation: 180),
        ]
        let service = try Self.service(states, pause: 0.15, socket: socket, in: dir)
        let log = dir.path("runs")
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket, "--exec", "\(Self.printVariables) >> \(log)"],
                                     in: dir, tag: "exec")
        #expect(watch.waitUntil(timeout: Tolerance.toolRun) { Self.lines(log).count >= 2 }, "\(Self.lines(log))")
        // A time, not a wait: for a wrong run to show.
        usleep(500_000)
        #expect(Self.lines(log) == [Self.expectedVariables[90]!, Self.expectedVariables[180]!])
        watch.stop()
        service.stop()
    }

    @Test("--exec refuses --once and --json, and an empty command, with a message saying what to leave out")
    func refusesOtherModes() throws {
        let once = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--exec", "true", "--once"])
        #expect(once.status == 2 && once.err.contains("leave out --once"), "\(once.err)")
        let json = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--json", "--exec", "true"])
        #expect(json.status == 2 && json.err.contains("leave out --json"), "\(json.err)")
        let empty = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--exec", ""])
        #expect(empty.status == 2 && empty.err.contains("--exec needs a command"), "\(empty.err)")
    }
}
