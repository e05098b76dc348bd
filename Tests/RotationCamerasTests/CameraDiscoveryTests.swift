import Foundation
import Testing
import TestSupport

/// The real `rotationd` finding cameras in an umockdev testbed: udev-described USB and platform nodes, MIPI
/// sensor sub-devices whose controls umockdev's ioctl emulation answers, hot-plug, and configuration.
///
/// Every run here also guards the testbed's `/dev/video*` nodes: the driver fails the run if any is opened
/// (inotify) or held by rotationd (its `/proc/PID/fd`).
@Suite("Cameras under umockdev", .serialized)
struct CameraDiscoveryTests {
    static let webcam = "/sys/devices/pci0000:00/0000:00:14.0/usb3/3-1"
    static let webcamNodes = [webcam + "/3-1:1.0/video4linux/video2", webcam + "/3-1:1.0/video4linux/video3"]

    /// The hello a client got after connecting to a service started with `arguments` on `devices`.
    static func hello(devices: [String], before: [Step] = [], arguments: [String] = []) async throws -> (Testbed.Result, [String: Any]?) {
        let socket = Testbed.socketPath("hello")
        let r = try await Testbed.run(devices: devices, steps: before + [
            .guardVideoNodes, .start, .connect(socket), .wait(.socket("\"type\":\"state\"")), .alive,
        ], arguments: ["--serve", "--socket", socket] + arguments)
        return (r, r.socket(1).first)
    }

    @Test("udev-only cameras: hwdb front and rear, USB on a fixed and on a removable port, a local quirk (facing, mount and panel); metadata and output nodes are not cameras")
    func udevCameras() async throws {
        let (r, hello) = try await Self.hello(devices: ["cameras-udev.umockdev"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(hello?["type"] as? String == "hello", "\(r.transcript)")
        let cameras = CameraMessage.cameras(hello)
        #expect(cameras.map(CameraMessage.summary) == [
            "front front 0 /dev/video0 udev default",
            "back back 0 /dev/video2 udev default",
            "front2 front 0 /dev/video4 usb-port default",
            "external external 0 /dev/video6 default default",
            "back2 back 90 /dev/video9 quirk quirk",
        ], "\(r.transcript)")
        #expect(cameras.map { $0["model"] as? String } == ["Integrated Camera: Integrated C", "Rear Camera",
                                                           "Integrated_Webcam_HD", "UVC Camera (046d:0825)", "Quirky Camera"])
        // The quirk also puts the last camera on a convertible's base (udev ROTATIOND_CAMERA_PANEL=base).
        #expect(cameras.map { $0["panel"] as? String } == ["lid", "lid", "lid", "lid", "base"], "\(r.transcript)")
        // The state carries the same list, with capture angles unknown until the sensor says something.
        let state = try #require(r.socket(1).dropFirst().first, "\(r.transcript)")
        #expect(CameraMessage.cameras(state).map(CameraMessage.summary) == cameras.map(CameraMessage.summary))
        #expect(CameraMessage.cameras(state).allSatisfy { $0["capture"] is NSNull })
        // No sensor in this testbed: that is the only warning.
        #expect(!r.stderr.contains { $0.contains("warning") && !$0.contains("no accelerometer found") }, "\(r.transcript)")
    }

    @Test("--list shows every camera with where each value came from, and why each other node is not a camera")
    func listing() async throws {
        let r = try await Testbed.run(devices: ["cameras-udev.umockdev"], steps: [.guardVideoNodes, .start, .wait(.stdout("video8"))],
                                  arguments: ["--list"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        for line in [
            "camera front: /dev/video0, Integrated Camera: Integrated C (capture node)",
            "  facing: front (source udev: ID_CAMERA_DIRECTION=front)",
            "  mount: 0° (source default: nothing reports it)",
            "  facing: back (source udev: ID_CAMERA_DIRECTION=rear)",
            "  facing: front (source usb-port: USB device 1-7 sits on a fixed port (removable=fixed), so it is built in)",
            "  facing: external (source default: USB device 1-2 on a port that is not fixed (removable=removable))",
            "camera back2: /dev/video9, Quirky Camera (capture node)",
            "  facing: back (source quirk: udev ROTATIOND_CAMERA_FACING=back, a local hwdb quirk)",
            "  mount: 90° (source quirk: udev ROTATIOND_CAMERA_MOUNT=90, a local hwdb quirk)",
            "/dev/video1: not a camera: not a capture node (ID_V4L_CAPABILITIES=:)",
            "/dev/video8: not a camera: not a capture node (ID_V4L_CAPABILITIES=:video_output:)",
        ] {
            #expect(r.stdout.contains(line), "missing \(line):\n\(r.transcript)")
        }
        for metadata in ["/dev/video1", "/dev/video3", "/dev/video5", "/dev/video7", "/dev/video8"] {
            #expect(!r.stdout.contains { $0.hasPrefix("camera ") && $0.contains(metadata + ",") }, "\(metadata) listed as a camera")
        }
    }

    @Test("MIPI sensors: the orientation and rotation controls give facing and mount (mount = 360 − rotation) for all four rotations; sub-devices without the orientation control are not cameras")
    func sensorControls() async throws {
        let controls: [Step] = [
            .v4l2Controls("/dev/v4l-subdev0", ["orientation": 0, "rotation": 0]),
            .v4l2Controls("/dev/v4l-subdev1", ["orientation": 1, "rotation": 90]),
            .v4l2Controls("/dev/v4l-subdev2", ["orientation": 2, "rotation": 180]),
            .v4l2Controls("/dev/v4l-subdev3", ["orientation": 0, "rotation": 270]),
            .v4l2Controls("/dev/v4l-subdev4", ["orientation": 1]),
            .v4l2Controls("/dev/v4l-subdev5", [:]),
        ]
        // v4l-subdev6, a CSI-2 receiver, has no emulation: every ioctl on its node fails with ENOTTY.
        let (r, hello) = try await Self.hello(devices: ["camera-sensors.umockdev"], before: controls)
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(CameraMessage.cameras(hello).map(CameraMessage.summary) == [
            "front front 0 /dev/v4l-subdev0 sensor sensor",
            "back back 270 /dev/v4l-subdev1 sensor sensor",
            "external external 180 /dev/v4l-subdev2 sensor sensor",
            "front2 front 90 /dev/v4l-subdev3 sensor sensor",
            "back2 back 0 /dev/v4l-subdev4 sensor default",
        ], "\(r.transcript)")
        #expect(CameraMessage.cameras(hello).map { $0["model"] as? String } == ["ov5693 2-0036", "ov8865 3-0010", "ov2680 3-0036",
                                                                             "imx258 4-0010", "imx219 4-001a"])
        let list = try await Testbed.run(devices: ["camera-sensors.umockdev"], steps: controls + [.start, .wait(.stdout("v4l-subdev6"))],
                                     arguments: ["--list"])
        #expect(list.stdout.contains("  mount: 270° (source sensor: V4L2_CID_CAMERA_SENSOR_ROTATION=90, a counter-clockwise correction)"),
                "\(list.transcript)")
        #expect(list.stdout.contains("/dev/v4l-subdev5: not a camera: a sub-device without V4L2_CID_CAMERA_ORIENTATION, so not a camera sensor"),
                "\(list.transcript)")
        #expect(list.stdout.contains("/dev/v4l-subdev6: not a camera: a sub-device without V4L2_CID_CAMERA_ORIENTATION, so not a camera sensor"),
                "\(list.transcript)")
    }

    @Test("a webcam plugged in and out while serving is a state change each way within a second; a later client's hello lists it; the camera thread sleeps in between")
    func hotPlug() async throws {
        let socket = Testbed.socketPath("plug")
        // A state whose list holds the front camera and no other: no second "name" after it.
        let onlyFront = #""cameras":\[\{"name":"front"(?:(?!"name":).)*$"#
        let r = try await Testbed.run(devices: ["camera-builtin.umockdev"], steps: [
            .guardVideoNodes, .start,
            .connect(socket), .wait(.socket("\"sensor\":\"none\"")),
            .asleep(thread: "rotationd-cam", seconds: 1.5),
            .add("camera-webcam.umockdev"),
            .wait(.socket("\"device\":\"/dev/video2\"", within: Tolerance.cameraHotPlug)),
            .connect(socket), .wait(.socket("\"type\":\"state\"")),
            .uevent(Self.webcamNodes[0], .remove), .uevent(Self.webcamNodes[1], .remove),
            .remove(Self.webcam),
            .wait(.socket(onlyFront, within: Tolerance.cameraHotPlug)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let first = r.socket(1).filter { $0["type"] as? String == "state" }
        let lists = first.map { CameraMessage.cameras($0).map { "\($0["name"] ?? "") \($0["device"] ?? "")" } }
        #expect(lists.first == ["front /dev/video0"], "\(r.transcript)")
        #expect(lists.contains(["front /dev/video0", "external /dev/video2"]), "\(r.transcript)")
        #expect(lists.last == ["front /dev/video0"], "\(r.transcript)")
        // Each change of the list is a state of its own, numbered on.
        let seqs = first.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(seqs.first!..<(seqs.first! + seqs.count)), "\(seqs)")
        // The second client connected while the webcam was in: its hello says so.
        let hello = CameraMessage.cameras(r.socket(2).first).map(CameraMessage.summary)
        #expect(hello == ["front front 0 /dev/video0 udev default", "external external 0 /dev/video2 default default"],
                "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: info: camera external: /dev/video2") }, "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: info: camera gone: external: /dev/video2") }, "\(r.transcript)")
    }

    @Test("a USB device's own remove event is enough: the nodes below it go with it")
    func usbDeviceEvents() async throws {
        let socket = Testbed.socketPath("usb")
        let r = try await Testbed.run(devices: ["camera-builtin.umockdev"], steps: [
            .guardVideoNodes, .start, .connect(socket), .wait(.socket("\"sensor\":\"none\"")),
            .add("camera-webcam.umockdev"),
            .wait(.socket("\"device\":\"/dev/video2\"", within: Tolerance.cameraHotPlug)),
            .uevent(Self.webcam, .remove), .remove(Self.webcam),
            .wait(.socket(#""cameras":\[\{"name":"front"(?:(?!"name":).)*$"#, within: Tolerance.cameraHotPlug)),
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
    }

    @Test("a convertible turned while a webcam is plugged in: the built-in front camera's capture angle and EXIF Orientation follow the turns, the webcam's stay at its mount")
    func convertibleAngles() async throws {
        let socket = Testbed.socketPath("turn")
        // Raw readings of the polled fixture's accelerometer (scale 0.019163, its mount matrix applied).
        let upright: [String: DriverJSON] = ["in_accel_x_raw": 523, "in_accel_y_raw": 13, "in_accel_z_raw": 5]
        let rightUp: [String: DriverJSON] = ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]
        let leftUp: [String: DriverJSON] = ["in_accel_x_raw": -8, "in_accel_y_raw": -521, "in_accel_z_raw": -67]
        let bottomUp: [String: DriverJSON] = ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]
        let r = try await Testbed.run(devices: ["camera-builtin.umockdev", "polled.umockdev"], steps: [
            .guardVideoNodes, .set("iio:device0", upright), .start,
            .connect(socket), .wait(.socket("\"rotation\":0,")),
            .add("camera-webcam.umockdev"),
            .wait(.socket("\"device\":\"/dev/video2\"", within: Tolerance.cameraHotPlug)),
            .set("iio:device0", rightUp), .wait(.socket("\"rotation\":270,")),
            .set("iio:device0", bottomUp), .wait(.socket("\"rotation\":180,")),
            .set("iio:device0", leftUp), .wait(.socket("\"rotation\":90,")),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        var seen: [Int: [String]] = [:]
        for s in r.socket(1) where s["type"] as? String == "state" {
            guard let rotation = s["rotation"] as? Int, CameraMessage.cameras(s).count == 2 else { continue }
            seen[rotation] = CameraMessage.cameras(s).map { "\($0["name"] ?? "") \($0["capture"] ?? "") exif \($0["exif"] ?? "")" }
        }
        // front, mount 0: (0 − r) mod 360; external: its mount, 0, whatever the rotation. EXIF Orientation
        // 1, 6, 3, 8 for 0, 90, 180, 270 clockwise.
        #expect(seen[0] == ["front 0 exif 1", "external 0 exif 1"], "\(r.transcript)")
        #expect(seen[270] == ["front 90 exif 6", "external 0 exif 1"], "\(r.transcript)")
        #expect(seen[180] == ["front 180 exif 3", "external 0 exif 1"], "\(r.transcript)")
        #expect(seen[90] == ["front 270 exif 8", "external 0 exif 1"], "\(r.transcript)")
    }

    @Test("--camera overrides a found camera by device link or by name; the other found cameras keep their own values")
    func configurationWins() async throws {
        let (r, hello) = try await Self.hello(devices: ["cameras-udev.umockdev"], arguments: [
            "--camera", "usb:back:180:/dev/v4l/by-path/pci-0000:00:14.0-usb-0:2:1.0-video-index0",
            "--camera", "front:front:270",
            "--camera", "spare:external:90:/dev/video42",
        ])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(CameraMessage.cameras(hello).map(CameraMessage.summary) == [
            "usb back 180 /dev/video6 config config",
            "front front 270 /dev/video0 config config",
            "spare external 90 /dev/video42 config config",
            "back back 0 /dev/video2 udev default",
            "front2 front 0 /dev/video4 usb-port default",
            "back2 back 90 /dev/video9 quirk quirk",
        ], "\(r.transcript)")
        // The found model stays with the camera that configuration took over.
        #expect(CameraMessage.cameras(hello).first?["model"] as? String == "UVC Camera (046d:0825)")
    }

    @Test("with no camera found and none configured the live list is empty")
    func noCameras() async throws {
        let (r, hello) = try await Self.hello(devices: [])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(hello?["type"] as? String == "hello" && CameraMessage.cameras(hello).isEmpty, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("cameras none found yet") }, "\(r.transcript)")
    }

    @Test("a quirk value rotationd does not understand is logged once and the next source is used; without DEVNAME the node is /dev/<kernel name>")
    func badQuirk() async throws {
        // camera-bad-quirk.umockdev has ROTATIOND_CAMERA_FACING=sideways, ROTATIOND_CAMERA_MOUNT=45 and
        // ID_CAMERA_DIRECTION=rear, and no DEVNAME property.
        let (r, hello) = try await Self.hello(devices: ["camera-bad-quirk.umockdev"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(CameraMessage.cameras(hello).map(CameraMessage.summary) == ["back back 0 /dev/video0 udev default"], "\(r.transcript)")
        let warnings = r.stderr.filter { $0.hasPrefix("rotationd: warning: /dev/video0: ignoring udev ROTATIOND_CAMERA_") }
        #expect(warnings.count == 2, "\(r.transcript)")
    }

    @Test("the guard itself: a program that opens a capture node fails the run, even for a moment")
    func guardCatchesAnOpen() async throws {
        // The opener lives on a moment after its open (a time: what a program does), and the run waits for its end.
        let opener = "import os, time; os.close(os.open('/dev/video0', os.O_RDONLY | os.O_NONBLOCK)); time.sleep(0.5)"
        let r = try await Testbed.run(devices: ["camera-builtin.umockdev"], steps: [.guardVideoNodes, .start, .exit(within: Tolerance.exit)],
                                  arguments: ["-c", opener], program: "/usr/bin/python3")
        #expect(r.status == 1, "\(r.transcript)")
        // inotify sees the open however short it was; the descriptor sampling may or may not have caught it too.
        #expect(r.failure.map { $0.step == nil && $0.message.hasPrefix("a video node was opened: ") } == true
                && r.failure?.message.contains("/dev/video0 was opened") == true, "\(r.transcript)")
    }
}
