import RotationClient
import RotationProtocol
import Testing

/// What the Swift client gives a program about a convertible: the posture, the hinge, each camera's direction
/// and the cameras facing one way, from a state line as the service writes it.
@Suite("Client posture")
struct ClientPostureTests {
    static func event(posture: Posture?, hinge: Int?, baseRotation: Rotation?) throws -> StateEvent {
        let cams = [Camera(name: "front", facing: .front, mount: 0), Camera(name: "back", facing: .back, mount: 0),
                    Camera(name: "world", facing: .front, mount: 0, device: "/dev/video4", panel: .base),
                    Camera(name: "usb", facing: .external, mount: 0)]
        var state = DeviceState(rotation: .bottomUp, tilt: .vertical, flat: false, inputs: .accel)
        state.fold = PostureState(posture: posture, hinge: hinge, heldHinge: hinge, baseRotation: baseRotation)
        let line = StateEvent(seq: 1, time: 1, state: state, cameras: cams).jsonLine
        guard case .state(let e)? = ServerMessage.decode(line) else {
            Issue.record("the state line does not decode: \(line)")
            throw DecodeFailure()
        }
        return e
    }

    struct DecodeFailure: Error {}

    @Test("folded back into a tablet, the base's camera faces backward with the lid's back camera, and turns with the base")
    func tabletGroups() throws {
        let e = try Self.event(posture: .tablet, hinge: 355, baseRotation: .leftUp)
        #expect(e.posture == .tablet && e.hinge == 355)
        #expect(e.cameras(facing: .forward).map(\.name) == ["front"])
        #expect(e.cameras(facing: .backward).map(\.name) == ["back", "world"])
        #expect(e.direction(camera: "/dev/video4") == .backward)
        #expect(e.direction(camera: "usb") == nil && e.direction(camera: "nope") == nil)
        // The lid's cameras turn with the display (180); the base's with the base (left-up: a front camera at 270).
        #expect(e.captureAngle(camera: "front") == 180 && e.captureAngle(camera: "world") == 270)
        #expect(e.exifOrientation(camera: "world") == 8)
    }

    @Test("a plain tablet has no posture or hinge; its cameras face forward and backward as mounted")
    func plainTablet() throws {
        let e = try Self.event(posture: nil, hinge: nil, baseRotation: nil)
        #expect(e.posture == nil && e.hinge == nil)
        #expect(e.cameras(facing: .forward).map(\.name) == ["front"])
        #expect(e.cameras(facing: .backward).map(\.name) == ["back"])
        #expect(e.captureAngle(camera: "world") == 180, "a base camera turns with the display while the base's rotation is unknown")
    }

    @Test("a camera's direction is the one the service published: while the service holds a hinge angle it cannot read now (the line's hinge is null), the base camera keeps the direction it gave; a line without directions, from an older service, falls back to the fold, and a direction this version does not know reads as nil")
    func publishedDirection() throws {
        // The service held the tablet's hinge: its heldHinge says 355 while the published hinge is null.
        let cams = [Camera(name: "front", facing: .front, mount: 0),
                    Camera(name: "world", facing: .front, mount: 0, device: "/dev/video4", panel: .base)]
        var state = DeviceState(rotation: .bottomUp, tilt: .vertical, flat: false, inputs: .accel)
        state.fold = PostureState(posture: .tablet, hinge: nil, heldHinge: 355, baseRotation: .leftUp)
        let line = StateEvent(seq: 1, time: 1, state: state, cameras: cams).jsonLine
        #expect(line.contains("\"direction\":\"backward\""), "\(line)")
        guard case .state(let e)? = ServerMessage.decode(line) else {
            Issue.record("the state line does not decode: \(line)")
            return
        }
        #expect(e.hinge == nil)
        #expect(e.direction(camera: "world") == .backward, "\(line)")
        #expect(e.cameras(facing: .backward).map(\.name) == ["world"])
        // The same line without the direction members: computed from what the line carries.
        let older = line.replacingOccurrences(of: ",\"direction\":\"backward\"", with: "")
            .replacingOccurrences(of: ",\"direction\":\"forward\"", with: "")
        guard case .state(let o)? = ServerMessage.decode(older) else {
            Issue.record("the line without directions does not decode: \(older)")
            return
        }
        #expect(o.direction(camera: "front") == .forward && o.direction(camera: "world") == nil, "\(older)")
        let unknown = line.replacingOccurrences(of: "\"direction\":\"backward\"", with: "\"direction\":\"upward\"")
        guard case .state(let u)? = ServerMessage.decode(unknown) else {
            Issue.record("a line with an unknown direction does not decode: \(unknown)")
            return
        }
        #expect(u.direction(camera: "world") == nil)
    }
}
