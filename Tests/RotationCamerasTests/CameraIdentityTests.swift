import Foundation
import Testing
import TestSupport

/// The names programs know a camera by, on the real `rotationd` under umockdev: the id libcamera gives it,
/// udev's `ID_PATH` (PipeWire's `device.bus-path`) and, for a MIPI sensor, the capture nodes its data
/// reaches in the media graph. The expected ids are worked out from the fixtures' sysfs by libcamera's rules
/// (`UmockdevFixture`), not written down.
@Suite("Camera names for programs", .serialized)
struct CameraIdentityTests {
    static let deviceTreeNode = "/sys/firmware/devicetree/base/soc/i2c@fdd40000/camera@10"

    /// The sensors' controls (facing and mount), the device-tree node the imx258 points at, and the two media
    /// graphs: an IPU3 (each sensor through its CSI-2 receiver to one CIO2 node) and an rkisp1 (both sensors
    /// and a sub-device without controls through one CSI-2 receiver to the ISP, its main and self paths, and
    /// its statistics node, a metadata node).
    static var sensorSteps: [Step] { [
        .mkdir(deviceTreeNode),
        .v4l2Controls("/dev/v4l-subdev0", ["orientation": 0, "rotation": 0]),
        .v4l2Controls("/dev/v4l-subdev1", ["orientation": 1, "rotation": 90]),
        .v4l2Controls("/dev/v4l-subdev2", ["orientation": 2, "rotation": 180]),
        .v4l2Controls("/dev/v4l-subdev3", ["orientation": 0, "rotation": 270]),
        .v4l2Controls("/dev/v4l-subdev4", ["orientation": 1]),
        .v4l2Controls("/dev/v4l-subdev5", [:]),
        .mediaGraph("/dev/media0", MediaGraph(
            entities: [.subdev("ov5693 2-0036", "81:16"), .subdev("ov8865 3-0010", "81:17"), .subdev("ov2680 3-0036", "81:18"),
                       .subdev("ipu3-csi2 0", "81:22"), .subdev("ipu3-csi2 1"), .subdev("ipu3-csi2 2"),
                       .video("ipu3-cio2 0", "81:10"), .video("ipu3-cio2 1", "81:11"), .video("ipu3-cio2 2", "81:12")],
            links: [(0, 3), (3, 6), (1, 4), (4, 7), (2, 5), (5, 8)])),
        .mediaGraph("/dev/media1", MediaGraph(
            entities: [.subdev("imx258 4-0010", "81:19"), .subdev("imx219 4-001a", "81:20"), .subdev("ov5640 4-0036", "81:21"),
                       .subdev("rkisp1_csi"), .subdev("rkisp1_isp"),
                       .subdev("rkisp1_resizer_mainpath"), .subdev("rkisp1_resizer_selfpath"),
                       .video("rkisp1_mainpath", "81:13"), .video("rkisp1_selfpath", "81:14"), .video("rkisp1_stats", "81:15")],
            links: [(0, 3), (1, 3), (2, 3), (3, 4), (4, 5), (4, 6), (5, 7), (6, 8), (4, 9)])),
    ] }
    static let sensorFixtures = ["camera-sensors.umockdev", "camera-media.umockdev"]
    static let usbFixtures = ["camera-builtin.umockdev", "camera-webcam.umockdev", "camera-usb-host.umockdev"]

    static func hello(_ devices: [String], steps: [Step]) async throws -> (Testbed.Result, [[String: Any]]) {
        let socket = Testbed.socketPath("ids")
        let r = try await Testbed.run(devices: devices, steps: steps + [
            .guardVideoNodes, .start, .connect(socket), .wait(.socket("\"type\":\"state\"")), .alive,
        ], arguments: ["--serve", "--socket", socket])
        return (r, CameraMessage.cameras(r.socket(1).first))
    }

    static func string(_ value: Any?) -> String? { value as? String }

    @Test("ACPI and device-tree sensors, and a platform sensor without a firmware node, carry libcamera's id and udev's ID_PATH; a sensor libcamera gives no id has null")
    func sensorIDs() async throws {
        let fixture = try UmockdevFixture(Self.sensorFixtures, directories: [Self.deviceTreeNode])
        let (r, cameras) = try await Self.hello(Self.sensorFixtures, steps: Self.sensorSteps)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(cameras.map { Self.string($0["device"]) } == (0...4).map { "/dev/v4l-subdev\($0)" }, "\(r.transcript)")
        var kinds: [String] = []
        for camera in cameras {
            let device = try #require(Self.string(camera["device"]))
            let path = try #require(fixture.syspath(of: device))
            #expect(Self.string(camera["bus_path"]) == fixture.devices[path]?.properties["ID_PATH"], "\(device)")
            #expect(camera["bus_path"] is String, "\(device): udev gives an ID_PATH")
            let expected = fixture.libcameraSensorID(device)
            #expect(Self.string(camera["libcamera"]) == expected, "\(device): \(camera)")
            if expected == nil { #expect(camera["libcamera"] is NSNull, "\(device)") }
            kinds.append(expected.map { $0.hasPrefix("\\") ? "acpi" : $0.hasPrefix("/base/") ? "device-tree" : "platform" } ?? "none")
        }
        // Every rule is exercised: two ACPI paths, a device-tree node, none, and a platform path with the model.
        #expect(kinds == ["acpi", "acpi", "none", "device-tree", "platform"], "\(cameras)")
        #expect(Self.string(cameras.last?["libcamera"]) == "platform/soc/fdd40000.i2c/i2c-4/4-001a imx219")
    }

    @Test("UVC webcams carry libcamera's id, from the controller's or the port's firmware node, the port path and vendor:product, and udev's ID_PATH")
    func uvcIDs() async throws {
        let fixture = try UmockdevFixture(Self.usbFixtures)
        let (r, cameras) = try await Self.hello(Self.usbFixtures, steps: [])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(cameras.map { Self.string($0["device"]) } == ["/dev/video0", "/dev/video2"], "\(r.transcript)")
        for camera in cameras {
            let device = try #require(Self.string(camera["device"]))
            let path = try #require(fixture.syspath(of: device))
            let expected = try #require(fixture.libcameraUVCID(device), "\(device)")
            #expect(Self.string(camera["libcamera"]) == expected, "\(device): \(camera)")
            #expect(Self.string(camera["bus_path"]) == fixture.devices[path]?.properties["ID_PATH"] && camera["bus_path"] is String)
            #expect(camera["nodes"] as? [String] == [device], "a capture node is its own capture node")
        }
        // The built-in camera's USB port has a firmware node of its own; the webcam's id comes from the controller.
        #expect(Self.string(cameras.first?["libcamera"])?.hasSuffix(".RHUB.HS05-5:1.0-04f2:b6d9") == true, "\(cameras)")
        #expect(Self.string(cameras.last?["libcamera"])?.hasSuffix("XHC_-1:1.0-046d:0825") == true, "\(cameras)")
    }

    @Test("a sensor names the capture nodes its data reaches in the media graph, through receivers and the ISP but not to a metadata node; those nodes are not cameras of their own")
    func mediaGraphNodes() async throws {
        let (r, cameras) = try await Self.hello(Self.sensorFixtures, steps: Self.sensorSteps)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let nodes = cameras.map { "\($0["device"] ?? "") \(($0["nodes"] as? [String] ?? []).joined(separator: ","))" }
        #expect(nodes == ["/dev/v4l-subdev0 /dev/video10", "/dev/v4l-subdev1 /dev/video11", "/dev/v4l-subdev2 /dev/video12",
                          "/dev/v4l-subdev3 /dev/video13,/dev/video14", "/dev/v4l-subdev4 /dev/video13,/dev/video14"], "\(r.transcript)")
        let list = try await Testbed.run(devices: Self.sensorFixtures, steps: Self.sensorSteps + [.guardVideoNodes, .start, .wait(.stdout("video15"))],
                                     arguments: ["--list"])
        #expect(list.failure == nil && list.status == 0, "\(list.transcript)")
        for line in [
            "camera front: /dev/v4l-subdev0, ov5693 2-0036 (sensor sub-device)",
            "  libcamera: \\_SB_.PCI0.I2C2.CAM0 (the sensor's firmware node, its ACPI path)",
            "  bus path: pci-0000:00:15.2-platform-i2c_designware.2 (udev ID_PATH)",
            "  capture nodes: /dev/video10 (the media graph of /dev/media0)",
            "  libcamera: /base/soc/i2c@fdd40000/camera@10 (the sensor's firmware node, its device-tree node)",
            "  capture nodes: /dev/video13 /dev/video14 (the media graph of /dev/media1)",
            "/dev/video10: not a camera: the capture node of camera sensor /dev/v4l-subdev0 (media graph), listed with it",
            "/dev/video13: not a camera: the capture node of camera sensors /dev/v4l-subdev3 and /dev/v4l-subdev4 (media graph), listed with it",
            "/dev/video15: not a camera: not a capture node (ID_V4L_CAPABILITIES=:)",
        ] {
            #expect(list.stdout.contains(line), "missing \(line):\n\(list.transcript)")
        }
    }

    @Test("without a media device a sensor names no capture node, and the capture nodes are cameras of their own")
    func noMediaGraph() async throws {
        let (r, cameras) = try await Self.hello(Self.sensorFixtures, steps: Array(Self.sensorSteps.prefix(7)))
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // /dev/media0 and /dev/media1 answer no ioctl: their graphs cannot be read, which is logged.
        #expect(cameras.filter { Self.string($0["device"])?.hasPrefix("/dev/v4l-subdev") == true }.allSatisfy { ($0["nodes"] as? [String]) == [] })
        // Five sensors and the first capture node make the six a state carries; the other nodes are left out.
        #expect(cameras.compactMap { Self.string($0["device"]) }.last == "/dev/video10", "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("cannot read the graph (MEDIA_IOC_G_TOPOLOGY) of /dev/media0") }, "\(r.transcript)")
    }
}
