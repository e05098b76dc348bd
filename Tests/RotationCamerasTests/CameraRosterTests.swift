import RotationProtocol
import Testing
@testable import RotationCameras

/// How found cameras and `--camera` become the published list: names, precedence and the limit.
@Suite("Camera roster")
struct CameraRosterTests {
    static func found(_ n: Int, _ facing: CameraFacing, mount: Int = 0, links: [String] = []) -> DiscoveredCamera {
        DiscoveredCamera(syspath: "/sys/devices/cam\(n)/video4linux/video\(n)", device: "/dev/video\(n)", links: links,
                         kind: .captureNode, model: "Camera \(n)", facing: facing, mount: mount,
                         sources: .init(facing: .udev, mount: .default), facingDetail: "test", mountDetail: "test")
    }

    @Test("found cameras are named after their facing, numbered from 2 when one is taken")
    func namesFollowFacing() {
        var roster = CameraRoster(configured: [])
        let list = roster.list([Self.found(0, .front), Self.found(2, .external), Self.found(4, .external), Self.found(6, .back)])
        #expect(list.cameras.map(\.camera.name) == ["front", "external", "external2", "back"])
        #expect(list.cameras.map(\.camera.device) == ["/dev/video0", "/dev/video2", "/dev/video4", "/dev/video6"])
        #expect(list.cameras.allSatisfy { $0.camera.source == .init(facing: .udev, mount: .default) })
    }

    @Test("a camera keeps its name while it stays plugged in, whatever comes and goes around it")
    func namesStayPut() {
        var roster = CameraRoster(configured: [])
        _ = roster.list([Self.found(2, .external), Self.found(4, .external)])
        let after = roster.list([Self.found(4, .external)])
        #expect(after.cameras.map(\.camera.name) == ["external2"])
        let again = roster.list([Self.found(2, .external), Self.found(4, .external)])
        #expect(again.cameras.map(\.camera.name) == ["external", "external2"])
    }

    @Test("a configured camera with a device overrides the found one answering to it, keeping its node and model")
    func configuredByDevice() {
        let configured = Camera(name: "usb", facing: .front, mount: 180, device: "/dev/v4l/by-id/usb-cam-video-index0", source: .config)
        var roster = CameraRoster(configured: [configured])
        let list = roster.list([Self.found(0, .front), Self.found(2, .external, links: ["/dev/v4l/by-id/usb-cam-video-index0"])])
        #expect(list.cameras.map(\.camera.name) == ["usb", "front"])
        let usb = list.cameras[0].camera
        #expect(usb.device == "/dev/video2" && usb.model == "Camera 2" && usb.facing == .front && usb.mount == 180)
        #expect(usb.source == .config)
        #expect(list.cameras[0].found?.kind == .captureNode)
    }

    @Test("a configured camera without a device overrides the found camera of its name")
    func configuredByName() {
        var roster = CameraRoster(configured: [Camera(name: "front", facing: .front, mount: 270)])
        let list = roster.list([Self.found(0, .front), Self.found(1, .back)])
        #expect(list.cameras.map(\.camera.name) == ["front", "back"])
        #expect(list.cameras[0].camera.mount == 270 && list.cameras[0].camera.device == "/dev/video0")
        #expect(list.cameras[0].camera.source == .config)
        #expect(list.cameras[1].camera.source == .init(facing: .udev, mount: .default))
    }

    @Test("a configured camera that matches nothing is listed as configured, and its name is not given to a found one")
    func configuredAlone() {
        let configured = Camera(name: "front", facing: .back, mount: 90, device: "/dev/video9")
        var roster = CameraRoster(configured: [configured])
        let list = roster.list([Self.found(0, .front)])
        #expect(list.cameras.map(\.camera.name) == ["front", "front2"])
        #expect(list.cameras[0].camera == configured && list.cameras[0].found == nil)
        #expect(list.cameras[1].camera.device == "/dev/video0")
        var empty = CameraRoster(configured: [])
        #expect(empty.list([]).cameras.isEmpty)
    }

    @Test("at most six cameras are listed; the rest are handed back")
    func limit() {
        var roster = CameraRoster(configured: [Camera(name: "a", facing: .front, mount: 0), Camera(name: "b", facing: .back, mount: 0)])
        let list = roster.list((0..<10).map { Self.found($0, .external) })
        #expect(list.cameras.count == Camera.maxCount)
        #expect(list.cameras.prefix(2).map(\.camera.name) == ["a", "b"])
        #expect(list.left.map(\.device) == ["/dev/video4", "/dev/video5", "/dev/video6", "/dev/video7", "/dev/video8", "/dev/video9"])
    }

    @Test("a sensor's rotation control is a counter-clockwise correction: mount is (360 − R) mod 360")
    func sensorRotationToMount() {
        #expect([0, 90, 180, 270].map(Camera.mount(sensorRotation:)) == [0, 270, 180, 90])
    }

    @Test("a model is cut so its JSON string fits its bound, and control characters become spaces")
    func modelBound() {
        let long = String(repeating: "\"", count: 100)
        var quoted = ""
        JSONWriter.appendString(CameraDiscovery.bounded(long), to: &quoted)
        #expect(quoted.utf8.count <= Camera.maxModelJSONBytes && quoted.utf8.count >= Camera.maxModelJSONBytes - 1)
        #expect(CameraDiscovery.bounded("USB\u{1}Cam") == "USB Cam")
        let wide = String(repeating: "é", count: 60)
        var q2 = ""
        JSONWriter.appendString(CameraDiscovery.bounded(wide), to: &q2)
        #expect(q2.utf8.count <= Camera.maxModelJSONBytes)
    }
}
