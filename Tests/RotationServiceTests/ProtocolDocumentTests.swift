import Foundation
import RotationProtocol
import Testing

/// The wire protocol's message types, checked against `Docs/protocol.md` and against hostile input.
@Suite("Protocol messages")
struct ProtocolDocumentTests {
    static func sessionLines() throws -> [String] {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("Docs/protocol.md"), encoding: .utf8)
        var lines: [String] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```session" { inside = true; continue }
            if line.hasPrefix("```") { inside = false; continue }
            if inside { lines.append(String(line)) }
        }
        return lines
    }

    @Test("every line of the documented example sessions decodes, and re-encodes to exactly the same text")
    func documentedSessionDecodes() throws {
        let lines = try Self.sessionLines()
        #expect(lines.count >= 10)
        var kinds = Set<String>()
        for line in lines {
            if line.hasPrefix("S: ") {
                let text = String(line.dropFirst(3))
                #expect(text.utf8.count <= ClientCommand.maxLineBytes)
                guard let message = ServerMessage.decode(text) else {
                    Issue.record("service line does not decode: \(text)")
                    continue
                }
                #expect(message.jsonLine == text, "re-encoding differs")
                kinds.insert(JSONLine.type(text) ?? "")
            } else if line.hasPrefix("C: ") {
                let text = String(line.dropFirst(3))
                switch ClientCommand.parse(text) {
                case .success(let command): #expect(command.jsonLine == text)
                case .failure:
                    // The documented unknown command must be refused as unknown, not as malformed.
                    #expect(text.contains("rotate"), "client line does not parse: \(text)")
                }
            } else {
                Issue.record("session line without S:/C: prefix: \(line)")
            }
        }
        #expect(kinds == ["hello", "state", "error", "subscribed", "sample"])
    }

    @Test("a state event survives encoding and decoding, including missed and an unknown time")
    func stateRoundTrip() throws {
        let cams = [Camera(name: "front", facing: .front, mount: 270), Camera(name: "usb", facing: .external, mount: 0)]
        let event = StateEvent(seq: 7, time: 12.5, state: DeviceState(rotation: .rightUp, tilt: .tiltedUp, flat: false, inputs: .accelGyro),
                               cameras: cams, sensor: .lost, missed: 3)
        let decoded = try #require(StateEvent(json: try JSONParser.parse(event.jsonLine)))
        #expect(decoded == event)
        let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: cams)
        #expect(initial.jsonLine.contains("\"t\":null"))
        #expect(StateEvent(json: try JSONParser.parse(initial.jsonLine))?.jsonLine == initial.jsonLine)
    }

    @Test("prefer takes a key as a string or null to forget; a missing, empty or other member is bad-argument; the command round-trips")
    func preferCommand() throws {
        #expect(try ClientCommand.parse(#"{"cmd":"prefer","camera":"/dev/video2"}"#).get() == .prefer("/dev/video2"))
        #expect(try ClientCommand.parse(#"{"cmd":"prefer","camera":null}"#).get() == .prefer(nil))
        for bad in [#"{"cmd":"prefer"}"#, #"{"cmd":"prefer","camera":""}"#, #"{"cmd":"prefer","camera":3}"#,
                    #"{"cmd":"prefer","camera":{"name":"front"}}"#, #"{"cmd":"prefer","camera":false}"#] {
            guard case .failure(let e) = ClientCommand.parse(bad) else { Issue.record("accepted \(bad)"); continue }
            #expect(e.code == .badArgument && e.message.contains("or null to forget the choice"), "\(e)")
        }
        for command in [ClientCommand.prefer(#"\_SB_.PCI0.XHC_-1:1.0-046d:0825"#), .prefer(nil)] {
            #expect(try ClientCommand.parse(command.jsonLine).get() == command)
        }
        guard case .failure(let unknown) = ClientCommand.parse(#"{"cmd":"choose"}"#) else { return }
        #expect(unknown.message.hasSuffix("the commands are state, hello, subscribe, prefer"))
    }

    @Test("a state's preferred camera survives encoding and decoding; one that names no camera of the state, or is absent, is none")
    func preferredRoundTrip() throws {
        let cams = [Camera(name: "front", facing: .front, mount: 0), Camera(name: "ir", facing: .front, mount: 0, infrared: true)]
        var event = StateEvent(seq: 3, time: 1, state: .initial, cameras: cams, sensor: .ok)
        event.preferred = "ir"
        let decoded = try #require(StateEvent(json: try JSONParser.parse(event.jsonLine)))
        #expect(decoded == event && decoded.preferredCamera?.infrared == true)
        event.preferred = nil
        #expect(event.jsonLine.hasSuffix(#""preferred":null}"#))
        let stranger = event.jsonLine.replacingOccurrences(of: #""preferred":null"#, with: #""preferred":"world""#)
        #expect(try #require(StateEvent(json: try JSONParser.parse(stranger))).preferred == nil)
        let older = event.jsonLine.replacingOccurrences(of: #","preferred":null"#, with: "")
        #expect(try #require(StateEvent(json: try JSONParser.parse(older))).preferred == nil)
    }

    @Test("a convertible's sample carries its base, hinge and switches, each only when read, and decodes to the same sample")
    func convertibleSampleRoundTrip() throws {
        var sample = Sample(time: 12.25, acceleration: Vector3(0.5, -9.75, 1), angularVelocity: Vector3(0.01, -0.02, 0.03))
        sample.base = Vector3(0, 2.5, 9.5)
        sample.hinge = 112.5
        sample.tabletMode = false
        sample.lidClosed = true
        let line = SampleMessage(sample: sample).jsonLine
        #expect(line == "{\"type\":\"sample\",\"t\":12.25,\"x\":0.5,\"y\":-9.75,\"z\":1,\"gx\":0.01,\"gy\":-0.02,\"gz\":0.03,"
                + "\"bx\":0,\"by\":2.5,\"bz\":9.5,\"hinge\":112.5,\"tablet_mode\":false,\"lid_closed\":true}")
        #expect(SampleMessage(json: try JSONParser.parse(line))?.sample == sample)
        let plain = SampleMessage(sample: Sample(time: 1, acceleration: Vector3(0, -9.8, 0))).jsonLine
        #expect(plain == "{\"type\":\"sample\",\"t\":1,\"x\":0,\"y\":-9.8,\"z\":0}")
    }

    @Test("the parser accepts valid JSON with escapes and rejects malformed text", arguments: [
        ("{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\ud83d\\ude00\\n\"]}", true),
        ("  {\"cmd\" : \"state\"}\r", true),
        ("{\"a\":01}", false), ("{\"a\":1,}", false), ("[1 2]", false), ("{\"a\":\"\\ud800\"}", false),
        ("{\"a\":\"\u{01}\"}", false), ("{'a':1}", false), ("{\"a\":1}x", false), ("", false), ("nul", false),
        ("{\"a\":1e999}", false), (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), false),
    ])
    func parserStrictness(text: String, valid: Bool) {
        let ok = (try? JSONParser.parse(text)) != nil
        #expect(ok == valid)
    }

    @Test("invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        let bytes: [UInt8] = Array("{\"cmd\":\"".utf8) + [0xC0, 0xAF] + Array("\"}".utf8)
        #expect((try? JSONParser.parse(bytes)) == nil)
        let overlong: [UInt8] = Array("\"".utf8) + [0xE0, 0x80, 0xAF] + Array("\"".utf8)
        #expect((try? JSONParser.parse(overlong)) == nil)
    }

    @Test("commands parse; bad ones give the documented error codes")
    func commandErrors() {
        #expect(ClientCommand.parse("{\"cmd\":\"state\",\"id\":4}") == .success(.state))
        #expect(ClientCommand.parse("{\"cmd\":\"subscribe\",\"events\":[\"samples\",\"state\",\"samples\"]}") == .success(.subscribe([.samples, .state])))
        func code(_ s: String) -> ErrorMessage.Code? {
            if case .failure(let e) = ClientCommand.parse(s) { return e.code }
            return nil
        }
        #expect(code("{") == .malformed)
        #expect(code("42") == .badCommand)
        #expect(code("{\"cmd\":3}") == .badCommand)
        #expect(code("{\"cmd\":\"dance\"}") == .unknownCommand)
        #expect(code("{\"cmd\":\"subscribe\"}") == .badArgument)
        #expect(code("{\"cmd\":\"subscribe\",\"events\":[1]}") == .badArgument)
        #expect(code(String(repeating: " ", count: 5000)) == .lineTooLong)
    }

    @Test("every error code and every sensor status has a row in the protocol document")
    func errorCodesAndSensorStatusesDocumented() throws {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("Docs/protocol.md"), encoding: .utf8)
        for code in ErrorMessage.Code.allCases {
            #expect(text.contains("| `\(code.rawValue)` |"), "protocol.md documents the error code \(code.rawValue)")
        }
        for status in [SensorStatus.ok, .lost, .none, .idle] {
            #expect(text.contains("| `\(status.rawValue)` |"), "protocol.md documents the sensor status \(status.rawValue)")
        }
    }

    @Test("the socket path follows --socket, then ROTATIOND_SOCKET, then root's or the user's runtime directory")
    func socketPathResolution() {
        let env = ["ROTATIOND_SOCKET": "/tmp/e.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(SocketPath.resolve(explicit: "/x.sock", environment: { env[$0] }, isRoot: false) == "/x.sock")
        #expect(SocketPath.resolve(explicit: nil, environment: { env[$0] }, isRoot: true) == "/tmp/e.sock")
        let noOverride = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(SocketPath.resolve(explicit: nil, environment: { noOverride[$0] }, isRoot: true) == "/run/rotationd/rotationd.sock")
        #expect(SocketPath.resolve(explicit: nil, environment: { noOverride[$0] }, isRoot: false) == "/run/user/1000/rotationd.sock")
        #expect(SocketPath.resolve(explicit: nil, environment: { _ in nil }, isRoot: false) == nil)
    }

    @Test("a client falls back to the system socket when no per-user socket exists and nothing names one")
    func clientSocketFallback() {
        let user = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        let userPath = "/run/user/1000/rotationd.sock"
        func client(_ env: [String: String], explicit: String? = nil, isRoot: Bool = false, existing: Set<String>) -> String {
            SocketPath.resolveForClient(explicit: explicit, environment: { env[$0] }, isRoot: isRoot, exists: { existing.contains($0) })
        }
        #expect(client(user, existing: [userPath]) == userPath, "a per-user service wins when it is there")
        #expect(client(user, existing: []) == SocketPath.system, "a user finds the system-wide service")
        #expect(client([:], existing: []) == SocketPath.system, "no XDG_RUNTIME_DIR: the system socket")
        #expect(client(user, isRoot: true, existing: [userPath]) == SocketPath.system)
        #expect(client(user, explicit: "/x.sock", existing: []) == "/x.sock", "--socket is never second-guessed")
        #expect(client(user.merging(["ROTATIOND_SOCKET": "/e.sock"]) { a, _ in a }, existing: []) == "/e.sock",
                "ROTATIOND_SOCKET is never second-guessed")
    }
}
