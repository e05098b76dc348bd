import Foundation
import Testing
import TestSupport

/// The camera to open, from the real `rotationd` under umockdev, read on the socket as two users (connections made
/// by processes running as uid 1000 and 1001): infrared cameras set apart, a webcam plugged in and out, each user's
/// choice kept for that user alone, across a restart and a `kill -9`, and a damaged memory survived.
@Suite("The camera to open", .serialized)
struct PreferredCameraLiveTests {
    static let webcam = "/sys/devices/pci0000:00/0000:00:14.0/usb3/3-1"
    static let webcamNodes = [webcam + "/3-1:1.0/video4linux/video2", webcam + "/3-1:1.0/video4linux/video3"]
    /// The laptop's two cameras: RGB on interface 1.0 (/dev/video0, metadata /dev/video1), infrared on 1.2
    /// (/dev/video4, metadata /dev/video5), one USB device on a fixed port.
    static let laptop = "camera-ir-laptop.umockdev"
    static let irLibcamera = #"\\_SB_.PCI0.XHC_.RHUB.HS06-6:1.2-0408:5473"#
    /// A plug or unplug is announced within this time, the most a person waits for a program to follow.
    static let followTime = 3.0

    /// A state line recommending `name` (or none, for nil).
    static func recommends(_ name: String?) -> String { "\"preferred\":" + (name.map { "\"\($0)\"" } ?? "null") + "[,}]" }

    /// The states received on connection `n`.
    static func states(_ r: Testbed.Result, _ n: Int) -> [[String: Any]] { r.socket(n).filter { $0["type"] as? String == "state" } }

    /// Each state's `preferred` on connection `n` ("null" for none), in order.
    static func preferred(_ r: Testbed.Result, _ n: Int) -> [String] { states(r, n).map { $0["preferred"] as? String ?? "null" } }

    /// Whether the `seq`s on connection `n` go up by one from state to state, but for the greeting's repeat.
    static func consecutive(_ r: Testbed.Result, _ n: Int) -> Bool {
        let seqs = states(r, n).compactMap { $0["seq"] as? Int }
        return zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 || $1 == $0 }
    }

    /// A directory of the test's own, shared by the runs of one test as the service's state directory.
    static func stateDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-state-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("an RGB and an infrared camera on one USB device: each says whether it is infrared, the infrared one is not recommended, and --list says where that came from")
    func infraredSetApart() async throws {
        let socket = Testbed.socketPath("ir")
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start, .connectAs(socket, uid: 1000), .wait(.socket(Self.recommends("front"))), .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        for message in [r.socket(1).first, Self.states(r, 1).last] {
            let cameras = CameraMessage.cameras(message).map { "\($0["name"] ?? "-") \($0["device"] ?? "-") \(($0["infrared"] as? Bool).map(String.init) ?? "-")" }
            #expect(cameras == ["front /dev/video0 false", "front2 /dev/video4 true"], "\(r.transcript)")
        }
        let list = try await Testbed.run(devices: [Self.laptop, "camera-ir-quirk.umockdev"],
                                         steps: [.guardVideoNodes, .start, .exit(within: Tolerance.reply)], arguments: ["--list"])
        #expect(list.status == 0, "\(list.transcript)")
        let text = list.stdout.joined(separator: "\n")
        for expected in [
            "camera front: /dev/video0, Integrated RGB Camera: Integrat (capture node)\n  facing: front",
            "  infrared: no (nothing says so)",
            "camera front2: /dev/video4, Integrated IR Camera: Integrate (capture node)",
            "  infrared: yes, not for pictures (udev ID_INFRARED_CAMERA=1, systemd's 70-cameras.hwdb)",
            "  infrared: no (udev ROTATIOND_CAMERA_INFRARED=0, a local hwdb quirk)",
            "  infrared: yes, not for pictures (udev ROTATIOND_CAMERA_INFRARED=1, a local hwdb quirk)",
            "/dev/video1: not a camera: not a capture node (ID_V4L_CAPABILITIES=:)",
            "preferred camera for a user with no choice: front (the built-in camera facing the user",
        ] {
            #expect(text.contains(expected), "missing \(expected):\n\(list.transcript)")
        }
    }

    @Test("a webcam plugged in is recommended to every user within 3 s, and the built-in front camera again once it is unplugged")
    func webcamPluggedInAndOut() async throws {
        let socket = Testbed.socketPath("plug")
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(1, Self.recommends("front"))),
            .connectAs(socket, uid: 1001), .wait(.socket(2, Self.recommends("front"))),
            .add("camera-webcam.umockdev"),
            .wait(.socket(1, Self.recommends("external"), within: Self.followTime)),
            .wait(.socket(2, Self.recommends("external"), within: Self.followTime)),
            .uevent(Self.webcamNodes[0], .remove), .uevent(Self.webcamNodes[1], .remove), .remove(Self.webcam),
            .wait(.socket(1, Self.recommends("front"), within: Self.followTime)),
            .wait(.socket(2, Self.recommends("front"), within: Self.followTime)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        for n in [1, 2] {
            var seen: [String] = []
            for p in Self.preferred(r, n) where seen.last != p { seen.append(p) }
            #expect(seen == ["front", "external", "front"], "connection \(n): \(Self.preferred(r, n))")
            #expect(Self.consecutive(r, n), "\(r.transcript)")
        }
        #expect(r.stderr.contains { $0.contains("camera external plugged in: recommended to users who have not chosen a camera since") },
                "\(r.transcript)")
    }

    @Test("two users choose differently by every kind of key: each change reaches that user's connections alone, with seq one more there")
    func twoUsersTwoChoices() async throws {
        let socket = Testbed.socketPath("users")
        let state = #"{"cmd":"state"}"#
        let r = try await Testbed.run(devices: [Self.laptop, "camera-webcam.umockdev"], steps: [
            .guardVideoNodes, .start,
            // The first connection starts the sampling, which finds no sensor: a change for everyone, before the others.
            .connectAs(socket, uid: 1000), .wait(.socket(1, #""sensor":"none""#)),
            .connectAs(socket, uid: 1001), .wait(.socket(2, Self.recommends("front"))),
            .connectAs(socket, uid: 1000), .wait(.socket(3, Self.recommends("front"))),
            // User 1000 by bus path: its two connections follow, user 1001's does not.
            .send(#"{"cmd":"prefer","camera":"pci-0000:00:14.0-usb-0:1:1.0"}"#, connection: 1),
            .wait(.socket(1, Self.recommends("external"))), .wait(.socket(3, Self.recommends("external"))),
            // User 1001 the infrared camera by its libcamera id: the user chose it, so it is recommended.
            .send(#"{"cmd":"prefer","camera":"\#(Self.irLibcamera)"}"#, connection: 2),
            .wait(.socket(2, Self.recommends("front2"))),
            // By node and by name; asking for the state on each connection shows where each user stands.
            .send(#"{"cmd":"prefer","camera":"/dev/video0"}"#, connection: 3), .wait(.socket(3, Self.recommends("front"))),
            .send(#"{"cmd":"prefer","camera":"external"}"#, connection: 3), .wait(.socket(3, Self.recommends("external"))),
            .send(state, connection: 1), .send(state, connection: 2),
            .wait(.socket(2, "\"preferred\":\"front2\"")),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // User 1001 saw its greeting, its own change and its state: nothing of user 1000's three.
        #expect(Self.preferred(r, 2).last == "front2" && !Self.preferred(r, 2).contains("external"), "\(Self.preferred(r, 2))")
        let seqs2 = Self.states(r, 2).compactMap { $0["seq"] as? Int }
        let seqs1 = Self.states(r, 1).filter { $0["sensor"] as? String == "none" }.compactMap { $0["seq"] as? Int }
        #expect(seqs2.last == seqs2.first! + 1, "user 1001 had one change of its own: \(seqs2)")
        #expect(seqs1.last == seqs1.first! + 3, "user 1000 had three: \(seqs1)")
        for n in 1...3 { #expect(Self.consecutive(r, n), "connection \(n): \(Self.states(r, n).map { $0["seq"] ?? "-" })") }
        #expect(Array(Self.preferred(r, 1).suffix(1)) == ["external"] && Self.preferred(r, 3).last == "external")
    }

    @Test("bad keys and arguments are refused with bad-argument and nothing changed, and the connection stays open")
    func badCommandsChangeNothing() async throws {
        let socket = Testbed.socketPath("bad")
        let bad = [#"{"cmd":"prefer","camera":"/dev/video1"}"#, #"{"cmd":"prefer","camera":"/dev/video5"}"#,
                   #"{"cmd":"prefer","camera":"rear"}"#, #"{"cmd":"prefer"}"#, #"{"cmd":"prefer","camera":7}"#,
                   #"{"cmd":"prefer","camera":""}"#, #"{"cmd":"prefer","camera":["front"]}"#]
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start, .connectAs(socket, uid: 1000), .wait(.socket(#""sensor":"none""#)),
        ] + bad.map { .send($0) } + [
            .send(#"{"cmd":"state"}"#), .wait(.socket(#""type":"state".*"preferred":"front""#)), .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let errors = r.socket(1).filter { $0["type"] as? String == "error" }
        #expect(errors.count == bad.count && errors.allSatisfy { $0["code"] as? String == "bad-argument" }, "\(r.transcript)")
        #expect((errors.first?["message"] as? String)?.contains("the cameras are front (/dev/video0), front2 (/dev/video4); nothing was changed") == true,
                "\(errors.first ?? [:])")
        // After the sensor's status: one seq, one camera recommended, whatever was sent.
        let after = Self.states(r, 1).filter { $0["sensor"] as? String == "none" }
        #expect(after.count == 2 && Set(after.compactMap { $0["seq"] as? Int }).count == 1, "\(r.transcript)")
        #expect(Set(Self.preferred(r, 1)) == ["front"], "\(r.transcript)")
    }

    @Test("a choice is kept across a kill -9 right after the reply and a restart, and the same webcam plugged in again is recognised; a quick return is no new arrival")
    func choiceSurvivesRestarts() async throws {
        let dir = try Self.stateDirectory("restart")
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = Testbed.socketPath("restart")
        let r = try await Testbed.run(devices: [Self.laptop, "camera-webcam.umockdev"], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(1, Self.recommends("front"))),
            .send(#"{"cmd":"prefer","camera":"pci-0000:00:14.0-usb-0:1:1.0"}"#, connection: 1),
            .wait(.socket(1, Self.recommends("external"))), .signal("KILL"), .ended("signal KILL"),
            .start,
            .connectAs(socket, uid: 1000), .wait(.socket(2, Self.recommends("external"))),
            .connectAs(socket, uid: 1001), .wait(.socket(3, Self.recommends("front"))),
            // Unplugged: the built-in camera; plugged again at once on the same port, with other node numbers as the
            // kernel gives them: the user's choice again, and no arrival for the other user.
            .uevent(Self.webcamNodes[0], .remove), .uevent(Self.webcamNodes[1], .remove), .remove(Self.webcam),
            .wait(.socket(2, Self.recommends("front"), within: Self.followTime)),
            .add("camera-webcam-replugged.umockdev"),
            .wait(.socket(2, Self.recommends("external"), within: Self.followTime)),
            .wait(.socket(3, #""device":"/dev/video8""#, within: Self.followTime)),
            .stop, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(4, Self.recommends("external"))),
            .connectAs(socket, uid: 1001), .wait(.socket(5, Self.recommends("front"))),
        ], arguments: ["--serve", "--socket", socket], environment: ["STATE_DIRECTORY": dir.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(Set(Self.preferred(r, 3)) == ["front"] && Set(Self.preferred(r, 5)) == ["front"], "user 1001 never saw an arrival: \(r.transcript)")
        let text = try String(contentsOf: dir.appendingPathComponent("camera-memory"), encoding: .utf8)
        #expect(text.contains(#"{"uid":1000,"camera":"bus:pci-0000:00:14.0-usb-0:1:1.0","order":"#), "\(text)")
    }

    @Test("a webcam that comes back after a system sleep is no new arrival: a user who chose after it came keeps the choice; one who did not keeps the webcam")
    func backAfterSleep() async throws {
        let socket = Testbed.socketPath("sleep")
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(1, #""sensor":"none""#)),
            .connectAs(socket, uid: 1001), .wait(.socket(2, Self.recommends("front"))),
            .add("camera-webcam.umockdev"),
            .wait(.socket(1, Self.recommends("external"), within: Self.followTime)),
            .wait(.socket(2, Self.recommends("external"), within: Self.followTime)),
            .send(#"{"cmd":"prefer","camera":"front"}"#, connection: 1), .wait(.socket(1, Self.recommends("front"))),
            // The USB device goes at the suspend and comes back after the resume: 8 s asleep, which the service's
            // monotonic clock does not count.
            .uevent(Self.webcamNodes[0], .remove), .uevent(Self.webcamNodes[1], .remove), .remove(Self.webcam),
            .wait(.socket(2, Self.recommends("front"), within: Self.followTime)),
            .suspend(8),
            .add("camera-webcam-replugged.umockdev"),
            .wait(.socket(2, Self.recommends("external"), within: Self.followTime)),
            .wait(.socket(1, #""device":"/dev/video8""#, within: Self.followTime)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // User 1000 chose the built-in camera after the webcam came: the webcam back is not a new arrival.
        let after = Self.states(r, 1).drop { CameraMessage.cameras($0).count < 3 || $0["preferred"] as? String != "front" }
        #expect(after.allSatisfy { $0["preferred"] as? String == "front" }, "\(Self.preferred(r, 1))")
        #expect(Self.preferred(r, 1).last == "front")
    }

    @Test("a damaged memory is logged and survived, one user's bad record losing none of the others', and replaced at the next choice")
    func damagedMemorySurvived() async throws {
        let dir = try Self.stateDirectory("damaged")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("camera-memory")
        let kept = #"{"uid":1001,"camera":"libcamera:\#(Self.irLibcamera)","order":7}"#
        let cameras = #"{"camera":"libcamera:\#(Self.irLibcamera)","order":0,"attached":true}"# + "\n"
            + #"{"camera":"libcamera:\\_SB_.PCI0.XHC_.RHUB.HS06-6:1.0-0408:5473","order":0,"attached":true}"#
        try Data(("{\"format\":\"rotationd-camera-memory\",\"version\":1,\"counter\":9}\n\u{0}\u{7f}garbage\n" + cameras + "\n"
                  + kept + "\n{\"uid\":1000,\"camera\":\"libc\n").utf8).write(to: file)
        let socket = Testbed.socketPath("damaged")
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1001), .wait(.socket(1, Self.recommends("front2"))),
            .connectAs(socket, uid: 1000), .wait(.socket(2, Self.recommends("front"))),
            .send(#"{"cmd":"prefer","camera":"front2"}"#, connection: 2), .wait(.socket(2, Self.recommends("front2"))),
            .stop,
        ], arguments: ["--serve", "--socket", socket], environment: ["STATE_DIRECTORY": dir.path])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("camera-memory: 2 damaged line(s) ignored") && $0.contains("the other records are kept") },
                "\(r.transcript)")
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "rewritten whole: \(text)")
        #expect(text.contains(#""uid":1001"#) && text.contains(#""uid":1000"#), "\(text)")
        // Garbage from the first byte: nothing remembered, the next choice writes a good file.
        try Data([0x00, 0xFF, 0xFE, 0x0A, 0x7B]).write(to: file)
        let g = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(1, Self.recommends("front"))),
            .send(#"{"cmd":"prefer","camera":"/dev/video4"}"#), .wait(.socket(1, Self.recommends("front2"))), .stop,
        ], arguments: ["--serve", "--socket", socket], environment: ["STATE_DIRECTORY": dir.path])
        #expect(g.failure == nil && g.status == 0, "\(g.transcript)")
        #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix(#"{"format":"rotationd-camera-memory","version":1,"#))
    }

    @Test("a state directory that cannot be written keeps the choice for the run and says so")
    func unwritableDirectory() async throws {
        let socket = Testbed.socketPath("ro")
        let r = try await Testbed.run(devices: [Self.laptop], steps: [
            .guardVideoNodes, .start,
            .connectAs(socket, uid: 1000), .wait(.socket(Self.recommends("front"))),
            .send(#"{"cmd":"prefer","camera":"front2"}"#), .wait(.socket(Self.recommends("front2"))),
            .wait(.stderr("cannot keep the camera memory")),
            .send(#"{"cmd":"state"}"#), .wait(.socket(Self.recommends("front2"))), .alive,
        ], arguments: ["--serve", "--socket", socket], environment: ["STATE_DIRECTORY": "/dev/null/rotationd"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("the preferred cameras chosen hold until rotationd stops") && $0.contains("StateDirectory=rotationd") },
                "\(r.transcript)")
    }
}
