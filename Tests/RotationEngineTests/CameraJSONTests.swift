import Testing
@testable import RotationEngine

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
        #expect(text == #"[{"name":"external","facing":"external","mount":0,"device":"/dev/video2","model":"UVC \"Camera\"","source":{"facing":"usb-port","mount":"default"}}]"#)
        let parsed = try JSONParser.parse(text)
        let back = try #require(parsed.arrayValue?.first.flatMap(Camera.init(json:)))
        #expect(back == cam)
    }

    @Test("device and model may be null or absent, source absent or named in a way this client does not know")
    func lenientDecoding() throws {
        let old = try #require(Self.decode(#"{"name":"front","facing":"front","mount":90,"capture":0}"#))
        #expect(old.device == nil && old.model == nil && old.source == nil)
        #expect(Camera.jsonArray([old]) == #"[{"name":"front","facing":"front","mount":90,"device":null,"model":null}]"#)
        let future = try #require(Self.decode(#"{"name":"f","facing":"back","mount":0,"device":null,"model":null,"source":{"facing":"acpi","mount":"sensor"}}"#))
        #expect(future.source == .init(facing: CameraValueSource(rawValue: "acpi"), mount: .sensor))
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"device":7}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"back","mount":0,"source":{"facing":"udev"}}"#) == nil)
        #expect(Self.decode(#"{"name":"f","facing":"sideways","mount":0}"#) == nil)
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
