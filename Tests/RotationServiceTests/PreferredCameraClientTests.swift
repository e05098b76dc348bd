import Foundation
import RotationClient
import RotationProtocol
import Testing
import TestSupport

/// Every client follows the camera to open and sets the user's choice, against a served replay (whose cameras are
/// the default pair, front and back; its choices are kept for the run).
@Suite("Clients and the camera to open", .serialized)
struct PreferredCameraClientTests {
    @Test("RotationClient: preferredCamera follows the state, prefer(_:) answers with the new recommendation, the event stream says each change, a refused key says why")
    func swiftClient() async throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 30)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        defer { _ = run.child.stop() }
        #expect(run.waitUntilServing())
        let client = RotationClient(path: run.socket)
        var seen: [String?] = []
        var preferredBack = false
        for await event in client.events() {
            guard case .preferredCamera(let camera) = event else { continue }
            seen.append(camera?.name)
            #expect(client.preferredCamera?.name == camera?.name)
            if seen.count == 1 {
                // Another connection of the same user chooses: this stream hears of it as a change.
                let answer = try client.prefer("back")
                #expect(answer.preferred == "back" && answer.preferredCamera?.facing == .back)
                preferredBack = true
            } else {
                break
            }
        }
        #expect(preferredBack && seen == ["front", "back"], "\(seen)")
        #expect(try client.prefer(nil).preferred == "front")
        #expect(client.preferredCamera?.name == "front")
        do {
            try client.prefer("/dev/video1")
            Issue.record("a key that names no camera was accepted")
        } catch {
            #expect(error.refusal?.code == .badArgument && error.description.contains("refused: no camera is known as \"/dev/video1\""),
                    "\(error)")
        }
    }

    @Test("rotwatch marks the camera to open with * and --prefer sets it, exiting 1 with the service's reason for a bad key; subscribe.py prints open=NAME and sets it too")
    func commandLineClients() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 30)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        defer { _ = run.child.stop() }
        #expect(run.waitUntilServing())
        let rotwatch = PackagePaths.binary("rotwatch")
        let once = try ChildProcess.run(rotwatch, ["--socket", run.socket, "--once"])
        #expect(once.status == 0 && once.out.split(separator: "\n").last?.contains(" *front ") == true && once.out.contains("  back "),
                "\(once.out)")
        let set = try ChildProcess.run(rotwatch, ["--socket", run.socket, "--prefer", "back"])
        #expect(set.status == 0 && set.out.contains("the camera to open now: back"), "\(set.out)\(set.err)")
        let after = try ChildProcess.run(rotwatch, ["--socket", run.socket, "--once"])
        #expect(after.out.split(separator: "\n").last?.contains(" *back ") == true, "\(after.out)")
        let bad = try ChildProcess.run(rotwatch, ["--socket", run.socket, "--prefer", "rear"])
        #expect(bad.status == 1 && bad.err.contains("refused: no camera is known as \"rear\"") && bad.err.contains("the cameras are front, back"),
                "\(bad.err)")
        let script = PackagePaths.root.appendingPathComponent("Docs/examples/subscribe.py").path
        let py = try ChildProcess.run("/usr/bin/env", ["python3", script, "--count", "2", "--prefer", ""],
                                      environment: ["ROTATIOND_SOCKET": run.socket])
        let lines = py.out.split(separator: "\n").map(String.init)
        #expect(py.status == 0 && lines.count == 3 && lines[1].contains(" open=back") && lines[2].contains(" open=front"),
                "\(py.out)\(py.err)")
        let pyBad = try ChildProcess.run("/usr/bin/env", ["python3", script, "--count", "2", "--prefer", "rear"],
                                         environment: ["ROTATIOND_SOCKET": run.socket])
        #expect(pyBad.status == 1 && pyBad.err.contains("the service refused: no camera is known as \"rear\""), "\(pyBad.err)")
    }
}
