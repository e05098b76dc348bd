import Foundation
import RotationClient
import RotationProtocol
import Testing
import TestSupport

/// "The capture angle of camera C at time T": the client's history of the states it received.
@Suite("The angle at a moment")
struct AngleAtMomentTests {
    static let cameras = [Camera(name: "front", facing: .front, mount: 270, device: "/dev/video1", nodes: ["/dev/video1"]),
                          Camera(name: "back", facing: .back, mount: 90, device: "/dev/v4l-subdev2", libcamera: #"\_SB_.PCI0.I2C3.CAM1"#,
                                 busPath: "pci-0000:00:15.3-platform-i2c_designware.3", nodes: ["/dev/video5", "/dev/video6"])]

    static func state(_ seq: Int, _ t: Double, _ rotation: Rotation?, missed: Int = 0) -> StateEvent {
        StateEvent(seq: seq, time: t, state: DeviceState(rotation: rotation, tilt: .vertical, flat: false, inputs: .accel),
                   cameras: cameras, missed: missed)
    }

    @Test("a state holds from its t until the next one's; before the first state, and where changes may have been missed, there is no answer")
    func history() {
        var h = StateHistory()
        h.record(Self.state(1, 10, .normal), newConnection: true)
        h.record(Self.state(2, 12, .leftUp))
        h.record(Self.state(3, 15, .bottomUp))
        #expect(h.state(at: 9.99) == nil)
        #expect(h.state(at: 10)?.seq == 1 && h.state(at: 11.999)?.seq == 1)
        #expect(h.state(at: 12)?.seq == 2 && h.state(at: 14.5)?.seq == 2)
        #expect(h.state(at: 100)?.seq == 3, "after the latest change, the latest state")
        // back, mount 90: (90 + r) mod 360; front, mount 270: (270 − r) mod 360.
        #expect(h.captureAngle(camera: "back", at: 11) == 90 && h.captureAngle(camera: "back", at: 13) == 180)
        #expect(h.captureAngle(camera: "front", at: 13) == 180 && h.captureAngle(camera: "front", at: 16) == 90)
        // The same state again (a reply to {"cmd":"state"}) is kept once.
        h.record(Self.state(3, 15, .bottomUp))
        #expect(h.entries.count == 3)
        // Missed changes: the span before the state that says so is unknown.
        h.record(Self.state(9, 20, .rightUp, missed: 5))
        #expect(h.state(at: 17) == nil && h.state(at: 14)?.seq == 2 && h.state(at: 20)?.seq == 9)
        // So is the span before the greeting on a new connection, which may follow changes not seen.
        h.record(Self.state(10, 25, .normal), newConnection: true)
        #expect(h.state(at: 22) == nil && h.state(at: 26)?.seq == 10)
        // A state without a time is not placed; an earlier time starts the history again.
        h.record(StateEvent(seq: 0, time: .nan, state: .initial, cameras: Self.cameras))
        #expect(h.entries.count == 5)
        h.record(Self.state(1, 0.5, .leftUp), newConnection: true)
        #expect(h.entries.count == 1 && h.state(at: 1)?.seq == 1 && h.state(at: 0.4) == nil)
    }

    @Test("the history keeps its latest states only")
    func bounded() {
        var h = StateHistory(capacity: 4)
        for i in 1...10 { h.record(Self.state(i, Double(i), Rotation.allCases[i % 4])) }
        #expect(h.entries.map(\.state.seq) == [7, 8, 9, 10])
        #expect(h.state(at: 6.5) == nil && h.state(at: 7.5)?.seq == 7)
    }

    @Test("a camera is found by its name, libcamera id, device, capture node, a symlink to one, or bus path")
    func lookup() throws {
        let e = Self.state(1, 1, .leftUp)
        #expect(e.camera(matching: "back")?.name == "back")
        #expect(e.camera(matching: #"\_SB_.PCI0.I2C3.CAM1"#)?.name == "back")
        #expect(e.camera(matching: "/dev/v4l-subdev2")?.name == "back" && e.camera(matching: "/dev/video6")?.name == "back")
        #expect(e.camera(matching: "pci-0000:00:15.3-platform-i2c_designware.3")?.name == "back")
        #expect(e.camera(matching: "/dev/video1")?.name == "front" && e.camera(matching: "/dev/video9") == nil)
        let dir = try ScratchDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir.path("by-id"), withDestinationPath: "/dev/video5")
        // realpath() needs the target to exist: a scratch file stands in for the node.
        let node = dir.path("video5")
        _ = FileManager.default.createFile(atPath: node, contents: nil)
        try FileManager.default.removeItem(atPath: dir.path("by-id"))
        try FileManager.default.createSymbolicLink(atPath: dir.path("by-id"), withDestinationPath: node)
        let renamed = StateEvent(seq: 1, time: 1, state: e.state,
                                 cameras: [Camera(name: "back", facing: .back, mount: 90, device: "/dev/v4l-subdev2", nodes: [node])])
        #expect(renamed.camera(matching: dir.path("by-id"))?.name == "back")
        // At left-up (90): back (90 + 90), EXIF 3; front (270 − 90) = 180, EXIF 3; the turn left after the mount.
        #expect(e.captureAngle(camera: "/dev/video6") == 180 && e.exifOrientation(camera: "/dev/video6") == 3)
        #expect(e.deviceTurn(camera: "back") == 90 && e.deviceTurn(camera: "front") == 270)
    }

    @Test("a client subscribed to a replayed service answers the capture angle at each change's t and between changes as the service published it")
    func againstTheService() async throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("turns.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 4, hold: 0.6)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"),
                                     extra: ["--camera", "back:back:90:/dev/video0", "--camera", "front:front:270:/dev/video1"], in: dir)
        #expect(service.waitUntilServing())
        let client = RotationClient(path: service.socket)
        var published: [StateEvent] = []
        for await event in client.events() {
            if case .message(.state(let e), _) = event, e.state.rotation != nil {
                published.append(e)
                if e.state.rotation == .normal && published.count > 1 { break }
            }
            if case .disconnected = event { break }
        }
        #expect(service.child.stop() == 0)
        let rotations = published.map { $0.state.rotation!.degrees }
        #expect(rotations.suffix(4) == [90, 180, 270, 0], "\(rotations)")
        for (i, e) in published.enumerated() {
            for name in ["back", "front"] {
                #expect(client.captureAngle(camera: name, at: e.time) == e.captureAngle(camera: name), "\(name) at \(e.time)")
                let next = i + 1 < published.count ? published[i + 1].time : e.time + 1
                #expect(client.captureAngle(camera: name, at: (e.time + next) / 2) == e.captureAngle(camera: name))
            }
        }
        #expect(client.captureAngle(camera: "back", at: published[0].time - 0.001) == nil)
        #expect(client.recentStates.count == published.count)
    }

    @Test("a CLOCK_BOOTTIME timestamp converts to CLOCK_MONOTONIC by the time spent suspended")
    func boottime() {
        var mono = timespec(), boot = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let bootNow = UInt64(boot.tv_sec) * 1_000_000_000 + UInt64(boot.tv_nsec)
        let monoNow = Double(mono.tv_sec) + Double(mono.tv_nsec) / 1e9
        let converted = RotationClient.monotonicSeconds(fromBoottimeNanoseconds: bootNow)
        #expect(abs(converted - monoNow) < Tolerance.clockReadsApart, "\(converted) vs \(monoNow)")
        // After an hour's suspend, a frame stamped 5 s ago on CLOCK_BOOTTIME was taken 5 s ago on CLOCK_MONOTONIC.
        let frame = RotationClient.monotonicSeconds(fromBoottimeNanoseconds: 9_000_000_000_000 - 5_000_000_000,
                                                    boottimeNow: 9000, monotonicNow: 5400)
        #expect(abs(frame - 5395) < 1e-6, "\(frame)")
    }
}
