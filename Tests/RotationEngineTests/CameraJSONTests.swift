import Testing
@testable import RotationEngine
import RotationProtocol

/// A camera object on the wire: the members a found camera carries, and what a client accepts.
@Suite("Camera objects")
struct CameraJSONTests {
    static func decode(_ text: String) -> Camera? {
        (try? JSONParser.parse(text)).flatMap(Camera.init(json:))
    }

    @Test("a found camera's device, model and sources survive encoding and decoding exactly")
    func roundTrip() throws {
        let cam = Camera(name: "external", facing: .external, mount: 0, device: "/dev/video2", model: "UVC \"Camera\"",
                         source: .init(facing: .usbPort, mount: .default))
        let text = Camera.jsonArray([cam])
        #expect(text == #"[{"name":"external","facing":"external","mount":0,"device":"/dev/video2","model":"UVC \"Camera\"","source":{"facing":"usb-port","mount":"default"},"libcamera":null,"bus_path":null,"nodes":[],"panel":"lid","infrared":false}]"#)
        let parsed = try JSONParser.parse(text)
        let back = try #require(parsed.arrayValue?.first.flatMap(Camera.init(json:)))
        #expect(back == cam)
    }

    @Test("device and model may be null or absent, source absent or named in a way this client does not know")
    func lenientDecoding() throws {
        let old = try #require(Self.decode(#"{"name":"front","facing":"front","mount":90,"capture":0}"#))
        #expect(old.device == nil && old.model == nil && old.source == nil)
        #expect(old.libcamera == nil && old.busPath == nil && old.nodes.isEmpty)
        #expect(Camera.jsonArray([old]) == #"[{"name":"front","facing":"front","mount":90,"device":null,"model":null,"libcamera":null,"bus_path":null,"nodes":[],"panel":"lid","infrared":false}]"#)
        #expect(old.panel == .lid)
        let future = try #require(Self.decode(#"{"name":"f","facing":"back","mount":0,"device":null,"model":null,"source":{"facing":"acpi","mount":"sensor"}}"#))
        #expect(future.source == .init(facing: CameraValueSource(rawValue: "acpi"), mount: .sensor))
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"device":7}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"source":{"facing":"udev"}}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"sideways","mount":0}"#) == nil)
        // infrared: false when absent or null, read when a boolean, refused otherwise.
        #expect(old.infrared == false)
        #expect(Self.decode(#"{"name":"f","facing":"front","mount":0,"infrared":true}"#)?.infrared == true)
        #expect(Self.decode(#"{"name":"f","facing":"front","mount":0,"infrared":null}"#)?.infrared == false)
        #expect(Self.decode(#"{"name":"f","facing":"front","mount":0,"infrared":1}"#) == nil)
    }

    @Test("the names programs know a camera by, libcamera's id with an ACPI backslash, the bus path and the capture nodes, survive encoding and decoding")
    func programNames() throws {
        let cam = Camera(name: "back", facing: .back, mount: 270, device: "/dev/v4l-subdev1", model: "ov8865 3-0010",
                         source: .init(facing: .sensor, mount: .sensor), libcamera: #"\_SB_.PCI0.I2C3.CAM1"#,
                         busPath: "pci-0000:00:15.3-platform-i2c_designware.3", nodes: ["/dev/video1", "/dev/video2"])
        let text = Camera.jsonArray([cam])
        #expect(text.contains(#""libcamera":"\\_SB_.PCI0.I2C3.CAM1","bus_path":"pci-0000:00:15.3-platform-i2c_designware.3","nodes":["/dev/video1","/dev/video2"],"panel":"lid","infrared":false}"#), "\(text)")
        let back = try #require(try JSONParser.parse(text).arrayValue?.first.flatMap(Camera.init(json:)))
        #expect(back == cam)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"nodes":"/dev/video0"}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"nodes":[3]}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"libcamera":1}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"nodes":null,"bus_path":null}"#)?.nodes == [])
    }

    @Test("a camera's panel survives encoding and decoding; one the client does not know is refused")
    func panelRoundTrip() throws {
        let cam = Camera(name: "world", facing: .front, mount: 0, panel: .base)
        let text = Camera.jsonArray([cam])
        #expect(text.contains(#""nodes":[],"panel":"base","infrared":false}"#), "\(text)")
        #expect(try #require(try JSONParser.parse(text).arrayValue?.first.flatMap(Camera.init(json:))) == cam)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"panel":"hinge"}"#) == nil)
    }

    @Test("a state gives each camera its direction, and the posture and hinge; a base camera turns with the base")
    func directionInState() throws {
        let cams = [Camera(name: "front", facing: .front, mount: 0), Camera(name: "back", facing: .back, mount: 0),
                    Camera(name: "world", facing: .front, mount: 0, panel: .base)]
        var state = DeviceState(rotation: .bottomUp, tilt: .vertical, flat: false, inputs: .accel)
        state.fold = PostureState(posture: .tent, hinge: 290, heldHinge: 290, baseRotation: .normal)
        let line = StateEvent(seq: 3, time: 1, state: state, cameras: cams).jsonLine
        #expect(line.contains(#""posture":"tent","hinge":290,"base_rotation":0,"cameras""#), "\(line)")
        let objects = try #require(try JSONParser.parse(line)["cameras"]?.arrayValue)
        #expect(objects.map { $0["direction"]?.stringValue } == ["forward", "backward", "sideways"])
        // The lid's cameras turn with the display (180), the base's with the base (0).
        #expect(objects.map { $0["capture"]?.intValue } == [180, 180, 0])
        let back = try #require(StateEvent(json: try JSONParser.parse(line)))
        #expect(back.state.fold.posture == .tent && back.state.fold.hinge == 290 && back.state.fold.baseRotation == .normal)
    }

    @Test("a state gives each camera the EXIF Orientation of its capture angle, 1, 6, 3 or 8, and null while the rotation is unknown")
    func exifInState() throws {
        let cams = [Camera(name: "front", facing: .front, mount: 90), Camera(name: "back", facing: .back, mount: 90),
                    Camera(name: "usb", facing: .external, mount: 180)]
        let exif = [0: 1, 90: 6, 180: 3, 270: 8]
        for rotation in [Rotation.normal, .leftUp, .bottomUp, .rightUp] {
            let line = StateEvent(seq: 1, time: 1, state: DeviceState(rotation: rotation, tilt: .vertical, flat: false, inputs: .accel),
                                  cameras: cams).jsonLine
            let objects = try #require(try JSONParser.parse(line)["cameras"]?.arrayValue)
            for (cam, object) in zip(cams, objects) {
                let capture = try #require(object["capture"]?.intValue)
                #expect(capture == cam.captureAngle(for: rotation))
                #expect(object["exif"]?.intValue == exif[capture], "\(cam.name) at \(rotation): \(line)")
            }
        }
        let unknown = StateEvent(seq: 0, time: .nan, state: .initial, cameras: cams).jsonLine
        #expect(unknown.contains(#""capture":null,"exif":null,"direction":"forward"}"#), "\(unknown)")
    }

    @Test("a name is accepted only short and free of characters JSON escapes; a bus path, capture node and libcamera id within their limits")
    func nameLimits() {
        #expect(Camera.isValidName("usb-left") && Camera.isValidName(String(repeating: "n", count: 32)))
        #expect(!Camera.isValidName("") && !Camera.isValidName(String(repeating: "n", count: 33)))
        #expect(!Camera.isValidName("a\u{1}") && !Camera.isValidName("a\"b") && !Camera.isValidName("a\\b"))
        #expect(Camera.isValidBusPath("pci-0000:00:14.0-usb-0:1.4.3:1.0") && !Camera.isValidBusPath("pci 0") && !Camera.isValidBusPath(""))
        #expect(Camera.isValidNode("/dev/video255") && !Camera.isValidNode("/dev/" + String(repeating: "v", count: 20)))
        #expect(Camera.isValidLibcameraID(#"\_SB_.PCI0.XHC_.RHUB.HS05-5:1.0-04f2:b6d9"#))
        #expect(!Camera.isValidLibcameraID(String(repeating: "\\", count: 48)) && Camera.isValidLibcameraID(String(repeating: "\\", count: 47)))
        #expect(!Camera.isValidLibcameraID("") && !Camera.isValidLibcameraID("a\nb"))
    }

    @Test("a device path is accepted only absolute, short and free of characters JSON escapes")
    func devicePaths() {
        #expect(Camera.isValidDevice("/dev/video0"))
        #expect(Camera.isValidDevice("/dev/v4l/by-id/usb-046d_0825_1234-video-index0"))
        #expect(!Camera.isValidDevice("video0"))
        #expect(!Camera.isValidDevice("/dev/" + String(repeating: "v", count: 60)))
        #expect(!Camera.isValidDevice("/dev/vid\"eo0") && !Camera.isValidDevice("/dev/video\u{1}") && !Camera.isValidDevice("/dev\\video0"))
    }
}
