import Foundation
import RotationClient
import RotationProtocol
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// rotwatch, the Python and shell examples and the Swift client library against a real service.
@Suite("Clients against a live service", .serialized)
struct ClientToolsTests {
    @Test("rotwatch --once exits 2 with a clear message when no service is running")
    func onceWithoutService() throws {
        let dir = try ScratchDirectory()
        let r = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--once", "--socket", dir.path("none.sock")])
        #expect(r.status == 2)
        #expect(r.err.contains("no rotation service at \(dir.path("none.sock"))"))
        #expect(r.out.isEmpty)
    }

    @Test("rotwatch --once prints a header and the current state; --once --json prints the raw state line")
    func onceWithService() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.5)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        // The replay has ended: the state is final.
        #expect(run.child.waitForLog("replay finished", timeout: Tolerance.replayRun), "\(run.child.stderr)")
        let human = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--once", "--socket", run.socket])
        #expect(human.status == 0)
        let lines = human.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("rotationd 0.1.0") == true && lines.first?.contains("sensor: replay:\(trace)") == true)
        #expect(lines.first?.contains("front (front, mount 90°), back (back, mount 90°)") == true)
        #expect(lines.last?.contains("left-up") == true && lines.last?.contains("90°") == true)
        #expect(lines.last?.contains("front 0°") == true && lines.last?.contains("back 180°") == true)
        #expect(lines.last?.contains("tilt vertical") == true)
        #expect(!human.out.contains("\u{1B}["), "no colour when stdout is not a terminal")

        let json = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--once", "--json"],
                                        environment: ["ROTATIOND_SOCKET": run.socket])
        #expect(json.status == 0)
        let obj = try #require(JSONLine.object(json.out.trimmingCharacters(in: .newlines)))
        #expect(obj["type"] as? String == "state" && obj["rotation"] as? Int == 90)
        #expect(run.child.stop() == 0)
    }

    /// A scripted stand-in for the service: a Python listener on `socket` that, for each of `connections`
    /// clients, sends `lines` (Python expressions giving bytes) with `pause` seconds between them.
    static func scriptedService(socket: String, lines: [String], pause: Double, connections: Int = 1,
                                in dir: ScratchDirectory, tag: String) throws -> ChildProcess {
        // Its sleeps are times, not waits: the pace of a service that sends its lines over time, and the moment
        // it holds a connection after the last one before it closes it.
        let code = """
        import socket, time
        s = socket.socket(socket.AF_UNIX); s.bind(\"\(socket)\"); s.listen()
        print("listening", flush=True)
        for _ in range(\(connections)):
            c, _ = s.accept()
            for part in [\(lines.joined(separator: ", "))]:
                c.sendall(part); time.sleep(\(pause))
            time.sleep(0.5); c.close()
        """
        let child = try ChildProcess("/usr/bin/python3", ["-c", code], in: dir, tag: tag)
        #expect(child.waitForOutput("listening", timeout: Tolerance.slowReply), "\(child.stderr)")
        return child
    }

    static let helloLine = #"{"type":"hello","protocol":1,"service":"rotationd","version":"0.1.0","sensor":null,"cameras":[],"events":["state"],"samples":false}"#
    static func stateLine(seq: Int, rotation: Int?, sensor: String) -> String {
        let names = [0: "normal", 90: "left-up", 180: "bottom-up", 270: "right-up"]
        let r = rotation.map(String.init) ?? "null", o = rotation.flatMap { names[$0] }.map { "\"\($0)\"" } ?? "null"
        return #"{"type":"state","seq":"# + "\(seq)" + #","t":null,"rotation":"# + r + #","orientation":"# + o
            + #","tilt":null,"flat":false,"inputs":"accel","sensor":""# + sensor + #"","cameras":[]}"#
    }

    @Test("rotwatch --once on an idle service waits for the state with the sensor's real status and prints that")
    func onceWaitsOutIdle() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let idle = Self.stateLine(seq: 0, rotation: nil, sensor: "idle")
        let ok = Self.stateLine(seq: 1, rotation: 90, sensor: "ok")
        let service = try Self.scriptedService(socket: socket, lines: ["b'\(Self.helloLine)\\n'", "b'\(idle)\\n'", "b'\(ok)\\n'"],
                                               pause: 0.6, connections: 2, in: dir, tag: "svc")
        let json = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--once", "--json", "--socket", socket])
        #expect(json.status == 0, "\(json.err)")
        #expect(json.out == ok + "\n", "the state after idle, not the idle one")
        let human = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--once", "--socket", socket])
        #expect(human.status == 0, "\(human.err)")
        #expect(human.out.contains("left-up") && !human.out.contains("idle"), "\(human.out)")
        service.stop()
    }

    @Test("the client refuses a line over 4096 bytes however it is split across reads, and accepts one at the limit")
    func longLinesAreDeterministic() throws {
        let dir = try ScratchDirectory()
        let long = "b'{\"type\":\"x\",\"pad\":\"' + b'a' * 5000 + b'\"}\\n'"
        for (tag, parts) in [("whole", ["b'\(Self.helloLine)\\n' + \(long)"]),
                             ("split", ["b'\(Self.helloLine)\\n'"] + (0..<11).map { "(\(long))[\($0 * 500):\($0 * 500 + 500)]" })] {
            let socket = dir.path("\(tag).sock")
            let service = try Self.scriptedService(socket: socket, lines: parts, pause: 0.02, in: dir, tag: tag)
            let c = try LineConnection(path: socket)
            #expect((try c.readLine(timeout: Tolerance.reply))?.contains("\"hello\"") == true)
            var failure: ClientError?
            do { _ = try c.readLine(timeout: Tolerance.reply) } catch { failure = error }
            #expect(failure?.reason.contains("longer than 4096 bytes") == true, "\(tag): \(String(describing: failure))")
            service.stop()
        }
        let atLimit = "b'{\"p\":\"' + b'a' * 4088 + b'\"}\\n'"
        let socket = dir.path("limit.sock")
        let service = try Self.scriptedService(socket: socket, lines: [atLimit, atLimit], pause: 0.02, in: dir, tag: "limit")
        let c = try LineConnection(path: socket)
        #expect((try c.readLine(timeout: Tolerance.reply))?.utf8.count == 4096)
        #expect((try c.readLine(timeout: Tolerance.reply))?.utf8.count == 4096)
        service.stop()
    }

    /// The trace times shown by rotwatch's human view, one per state line (the header and the states without a
    /// rotation left out).
    static func shownTimes(_ view: [String]) -> [Double] {
        view.dropFirst().filter { !$0.contains("unknown") }.compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).first.flatMap { Double($0) }
        }
    }

    @Test("rotwatch --json prints exactly the service's lines, and the human view one line per change with its time")
    func streamingModes() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 3, count: 6, hold: 0.4)
        let reference = try ServiceRun.referenceLines(trace: trace, in: dir)
        try #require(reference.count >= 5)
        let last = try #require(reference.last)
        let lastTime = try #require(JSONLine.object(last)?["t"] as? Double)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--speed", "2"], in: dir)
        #expect(run.waitUntilServing())
        // The service stamps each change on CLOCK_MONOTONIC, where the printed replay keeps the trace's time.
        let clock = try #require(run.replayClock(), "\(run.child.stderr)")
        // A raw subscriber beside rotwatch: the lines the service sent.
        let raw = try TestSocket(path: run.socket)
        let json = try ChildProcess(PackagePaths.binary("rotwatch"), ["--json", "--socket", run.socket], in: dir, tag: "json")
        let human = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", run.socket], in: dir, tag: "human")
        // Each has printed the last change, a whole line of it.
        #expect(json.waitUntil(timeout: Tolerance.replayRun) {
            json.stdout.hasSuffix("\n") && json.stdout.split(separator: "\n").last.map { clock.matches(String($0), last) } == true
        }, "\(json.stdout)")
        let view = { human.stdout.split(separator: "\n").map(String.init) }
        // (The human view shows the times to the millisecond.)
        func same(_ a: Double?, _ b: Double?) -> Bool { a != nil && b != nil && abs(a! - b!) < 0.0007 }
        #expect(human.waitUntil(timeout: Tolerance.replayRun) { same(Self.shownTimes(view()).last, clock.served(lastTime)) && human.stdout.hasSuffix("\n") }, "\(human.stdout)")
        var sent: [String] = []
        while let line = raw.readLine(timeout: Tolerance.quiet) { sent.append(line) }
        raw.close()

        // A client sees the state current when it connects and then every later change. When it connected
        // depends on how soon the process started, so the stream is compared from there on: the state
        // before the first decision (seq 0) can only come first, and what follows it is the tail of the
        // service's own output, byte for byte, with at least the last few changes: the printed replay's but for
        // the clock of t.
        let lines = json.stdout.split(separator: "\n").map(String.init)
        #expect(JSONLine.type(lines.first ?? "") == "hello")
        let states = Array(lines.dropFirst())
        #expect(!states.dropFirst().contains { JSONLine.int($0, "seq") == 0 }, "seq 0 only as the state on connecting")
        let relayed = states.filter { JSONLine.int($0, "seq") != 0 }
        #expect(relayed.count >= 3, "rotwatch --json saw \(relayed.count) changes")
        #expect(relayed == Array(sent.filter { JSONLine.type($0) == "state" && JSONLine.int($0, "seq") != 0 }.suffix(relayed.count)),
                "rotwatch --json relays the service's lines unchanged")
        #expect(zip(relayed, reference.suffix(relayed.count)).allSatisfy(clock.matches), "the service's lines are the replay's")

        #expect(view().first?.contains("rotationd 0.1.0") == true)
        let shown = view().dropFirst().filter { !$0.contains("unknown") }
        let expected = reference.suffix(shown.count).compactMap(JSONLine.object)
        #expect(shown.count >= 3, "the human view showed \(shown.count) changes")
        let times = Self.shownTimes(view())
        #expect(times.count == expected.count, "one line per change")
        for (i, (line, state)) in zip(shown, expected).enumerated() {
            let name = state["orientation"] as? String ?? "?"
            #expect(line.contains(name), "\(line) should show \(name)")
            #expect(same(times.indices.contains(i) ? times[i] : nil, (state["t"] as? Double).map(clock.served)), "\(line) should show the time of \(state)")
        }
        json.stop()
        human.stop()
        #expect(run.child.stop() == 0)
    }

    @Test("rotwatch reports a stopped service, waits, and reconnects when it comes back")
    func reconnectsAfterRestart() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let socket = dir.path("s.sock")
        let first = try ServiceRun(trace: trace, socket: socket, in: dir, tag: "first")
        #expect(first.waitUntilServing())
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket], in: dir, tag: "watch")
        #expect(watch.waitForOutput("rotationd 0.1.0", timeout: Tolerance.slowReply))
        #expect(first.child.stop() == 0)
        #expect(watch.waitForLog("waiting for the service", timeout: Tolerance.slowReply))
        // A time, not a wait: rotwatch must still be waiting a second later.
        usleep(1_000_000)
        #expect(watch.isRunning, "rotwatch keeps waiting")
        let second = try ServiceRun(trace: trace, socket: socket, in: dir, tag: "second")
        #expect(second.waitUntilServing())
        _ = watch.waitUntil(timeout: Tolerance.slowReply) { watch.stdout.components(separatedBy: "rotationd 0.1.0").count >= 3 }
        #expect(watch.stdout.components(separatedBy: "rotationd 0.1.0").count == 3, "a second header after reconnecting")
        #expect(watch.isRunning)
        watch.stop()
        #expect(second.child.stop() == 0)
    }

    @Test("rotwatch colours a terminal, but not when NO_COLOR is set; --help documents every option")
    func colourAndHelp() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let command = "\(PackagePaths.binary("rotwatch")) --once --socket \(run.socket)"
        let tty = try ChildProcess.run("/usr/bin/script", ["-qfec", command, "/dev/null"])
        #expect(tty.status == 0)
        #expect(tty.out.contains("\u{1B}["), "colour on a terminal")
        let plain = try ChildProcess.run("/usr/bin/script", ["-qfec", command, "/dev/null"], environment: ["NO_COLOR": "1"])
        #expect(plain.status == 0 && plain.out.contains("rotationd 0.1.0"))
        #expect(!plain.out.contains("\u{1B}["), "no colour with NO_COLOR")
        let empty = try ChildProcess.run("/usr/bin/script", ["-qfec", command, "/dev/null"], environment: ["NO_COLOR": ""])
        #expect(empty.status == 0 && empty.out.contains("\u{1B}["), "an empty NO_COLOR does not turn colour off (no-color.org)")
        #expect(run.child.stop() == 0)

        let help = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--help"])
        #expect(help.status == 0)
        for word in ["--json", "--once", "--socket", "NO_COLOR", "ROTATIOND_SOCKET", "reconnecting", "exit"] {
            #expect(help.out.contains(word), "--help mentions \(word)")
        }
        let bad = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--frobnicate"])
        #expect(bad.status == 2 && bad.err.contains("unknown option"))
    }

    @Test("the Python example subscribes with the standard library and prints each change")
    func pythonExample() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 1.5, count: 3, hold: 0.4)
        let reference = try ServiceRun.referenceLines(trace: trace, in: dir)
        try #require(reference.count >= 3)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let script = PackagePaths.root.appendingPathComponent("Docs/examples/subscribe.py").path
        let r = try ChildProcess.run("/usr/bin/env", ["python3", script, "--count", "3"],
                                     environment: ["ROTATIOND_SOCKET": run.socket], timeout: Tolerance.replayRun)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first?.contains("rotationd 0.1.0, sensor replay:") == true)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("seq=") && $0.contains("front=") })
        // Three states in a row of the service's stream, starting from the one current when the script
        // connected (which depends on how soon Python started): each as the replay printed it.
        func field(_ name: String, _ line: String) -> String? {
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        let seqs = lines.dropFirst().compactMap { field("seq", $0).flatMap { Int($0) } }
        #expect(seqs.count == 3 && seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + 3)), "consecutive changes: \(seqs)")
        for line in lines.dropFirst() {
            guard let seq = field("seq", line).flatMap({ Int($0) }), seq > 0 else {
                #expect(field("orientation", line) == "None", "before the first decision: \(line)")
                continue
            }
            let state = try #require(reference.indices.contains(seq - 1) ? JSONLine.object(reference[seq - 1]) : nil, "\(line)")
            #expect(field("orientation", line) == state["orientation"] as? String, "\(line) against \(reference[seq - 1])")
        }
        #expect(run.child.stop() == 0)
        let none = try ChildProcess.run("/usr/bin/env", ["python3", script, "--socket", dir.path("none.sock")])
        #expect(none.status == 2 && none.err.contains("no rotation service"))
    }

    @Test("the socat one-liner prints the service's JSON lines")
    func shellOneLiner() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"), "socat is installed by scripts/install-deps.sh")
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 2, hold: 0.4)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let script = PackagePaths.root.appendingPathComponent("Docs/examples/watch.sh").path
        let sh = try ChildProcess("/bin/sh", [script], environment: ["ROTATIOND_SOCKET": run.socket], in: dir, tag: "sh")
        #expect(sh.waitForOutput("\"type\":\"state\"", timeout: Tolerance.slowReply))
        #expect(JSONLine.type(sh.stdout.split(separator: "\n").first.map(String.init) ?? "") == "hello")
        sh.stop(SIGKILL)
        #expect(run.child.stop() == 0)
    }

    @Test("the client library yields events as an AsyncSequence, reconnects, and computes preview angles")
    func clientLibrary() async throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.5)
        let socket = dir.path("s.sock")
        var first: ServiceRun? = try ServiceRun(trace: trace, socket: socket, in: dir, tag: "first")
        #expect(first?.waitUntilServing() == true)
        let client = RotationClient(path: socket)
        var connects = 0, disconnects = 0
        var leftUp: StateEvent?
        var second: ServiceRun?
        for await event in client.events() {
            switch event {
            case .connected(_, let hello, _):
                connects += 1
                #expect(hello.protocolVersion == 1 && hello.cameras.count == 2)
            case .message(.state(let e), _):
                if e.state.rotation == .leftUp { leftUp = e }
                if connects == 1 && leftUp != nil && first != nil {
                    #expect(first?.child.stop() == 0)
                    first = nil
                }
            case .disconnected:
                disconnects += 1
                if second == nil { second = try ServiceRun(trace: trace, socket: socket, in: dir, tag: "second") }
            default: break
            }
            if connects == 2 { break }
        }
        #expect(connects == 2 && disconnects >= 1)
        let e = try #require(leftUp)
        // left-up (90°): a back camera mounted at 90° captures at 180°; a UI kept upright (u = 0) previews it at 180°,
        // a UI that follows the device (u = 90) at the mount, 90°; the front camera previews at (90 − 90 + u).
        #expect(e.captureAngle(camera: "back") == 180 && e.captureAngle(camera: "front") == 0)
        #expect(e.previewAngle(camera: "back", interfaceRotation: 0) == 180)
        #expect(e.previewAngle(camera: "back", interfaceRotation: 90) == 90)
        #expect(e.previewAngle(camera: "front", interfaceRotation: 90) == 90)
        #expect(e.previewAngle(camera: "nope", interfaceRotation: 0) == nil)
        #expect(second?.child.stop() == 0)
    }
}
