import Foundation
import RotationEngine
import RotationProtocol
import RotationService
import Testing
import TestSupport

/// The camera list as the runner's second input, in process: a change is a state of its own, and `hello`
/// reports the list as it is when a client connects.
@Suite("Camera list changes", .serialized)
struct CameraChangeTests {
    static let front = Camera(name: "front", facing: .front, mount: 0, device: "/dev/video0", model: "Integrated Camera",
                              source: .init(facing: .udev, mount: .default))
    static let webcam = Camera(name: "external", facing: .external, mount: 0, device: "/dev/video2", model: "UVC Camera",
                               source: .init(facing: .default, mount: .default))

    /// Collects every published state.
    final class Collector: PublisherOutput, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [StateEvent] = []
        func publish(_ event: StateEvent) { lock.lock(); events.append(event); lock.unlock() }
        var published: [StateEvent] { lock.lock(); defer { lock.unlock() }; return events }
    }

    static func upright(_ t: Double) -> Sample { Sample(time: t, acceleration: Vector3(0, -9.81, 0)) }
    static func leftUp(_ t: Double) -> Sample { Sample(time: t, acceleration: Vector3(9.81, 0, 0)) }

    @Test("a new camera list is published with the next seq and the rotation kept; the same list again is no change")
    func runnerPublishesListChanges() {
        let out = Collector()
        let runner = EngineRunner(engine: OrientationEngine(), cameras: [Self.front], sensor: .ok, publisher: Publisher(outputs: [out]))
        for i in 0..<50 { runner.feed(Self.leftUp(Double(i) * 0.02)) }
        let decided = runner.current
        #expect(decided.state.rotation == .leftUp)
        runner.setCameras([Self.front, Self.webcam], time: 2)
        runner.setCameras([Self.front, Self.webcam], time: 3)
        let last = out.published.last!
        #expect(out.published.count == decided.seq + 1)
        #expect(last.seq == decided.seq + 1 && last.time == 2)
        #expect(last.state == decided.state && last.sensor == .ok)
        #expect(last.cameras == [Self.front, Self.webcam])
        // front mount 0 at left-up: (0 − 90) mod 360; the webcam keeps its mount.
        #expect(last.jsonLine.contains(#""capture":270,"exif":8,"direction":"forward"},{"name":"external""#) && last.jsonLine.hasSuffix(#""capture":0,"exif":1,"direction":null}],"preferred":"front"}"#))
        // Samples after the change keep the new list.
        for i in 0..<50 { runner.feed(Self.upright(3 + Double(i) * 0.02)) }
        #expect(out.published.last!.state.rotation == .normal && out.published.last!.cameras.count == 2)
    }

    @Test("hello lists the cameras as they are when the client connects, not as they were at start")
    func helloFollowsTheList() throws {
        let dir = try ScratchDirectory()
        let listener = try ListeningSocket.bind(path: dir.path("s.sock"), mode: 0o600)
        let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: [Self.front], sensor: .idle)
        let server = try SocketServer(listener: listener, identity: .init(sensor: nil), initial: initial)
        server.start()
        defer { server.close() }
        let runner = EngineRunner(engine: OrientationEngine(), cameras: [Self.front], sensor: .idle,
                                  publisher: Publisher(outputs: [server]))
        let early = try TestSocket(path: dir.path("s.sock"))
        #expect(JSONLine.object(early.readLine() ?? "")?["cameras"] as? [Any] != nil)
        _ = early.readLine()
        runner.setCameras([Self.front, Self.webcam], time: 1)
        // The early client gets the change as a state; once it has, a new client's hello has the webcam.
        let change = try #require(early.readLine())
        #expect(JSONLine.int(change, "seq") == 1 && change.contains("/dev/video2"), "\(change)")
        let late = try TestSocket(path: dir.path("s.sock"))
        let hello = try #require(late.readLine())
        let names = (JSONLine.object(hello)?["cameras"] as? [[String: Any]])?.map { $0["name"] as? String }
        #expect(names == ["front", "external"], "\(hello)")
        #expect(hello.contains(#""device":"/dev/video2","model":"UVC Camera","source":{"facing":"default","mount":"default"}"#), "\(hello)")
    }

    @Test("the longest camera list a state can carry, every name of every camera at its longest, fits the protocol's line limit")
    func widestListFits() throws {
        let widest = SocketServer.widestCameras
        try SocketServer.checkLineLengths(cameras: widest)
        #expect(widest.count == Camera.maxCount)
        #expect(widest.allSatisfy { $0.nodes.count == Camera.maxNodes && $0.libcamera.map(Camera.isValidLibcameraID) == true })
        let state = StateEvent(seq: Int.max, time: -1e12, state: DeviceState(rotation: .rightUp, tilt: .tiltedDown, flat: false, inputs: .accelGyro),
                               cameras: widest, sensor: .lost, missed: Int.max).jsonLine
        #expect(state.utf8.count <= ClientCommand.maxLineBytes, "\(state.utf8.count) bytes")
        // One camera more would not fit: the limit is what the line allows, not less.
        let more = widest + [widest[0]]
        #expect(throws: (any Error).self) { try SocketServer.checkLineLengths(cameras: more) }
    }
}
