import Foundation
import RotationProtocol
import Testing
import TestSupport

/// rotwatch shows each camera's device, and a new camera list when one is plugged in or out.
@Suite("rotwatch and cameras", .serialized)
struct RotwatchCameraTests {
    static let front = #"{"name":"front","facing":"front","mount":0,"device":"/dev/video0","model":"Integrated Camera","source":{"facing":"udev","mount":"default"}}"#
    static let webcam = #"{"name":"external","facing":"external","mount":0,"device":"/dev/video2","model":"UVC Camera","source":{"facing":"default","mount":"default"}}"#

    /// A left-up state: the front camera (mount 0) captures at 270°, the webcam at its mount, 0°.
    static func state(seq: Int, cameras: [String]) -> String {
        let withCapture = cameras.map { String($0.dropLast()) + #","capture":"# + ($0 == front ? "270" : "0") + "}" }
        return #"{"type":"state","seq":"# + "\(seq)" + #","t":12.5,"rotation":90,"orientation":"left-up","tilt":"vertical","flat":false,"inputs":"accel","sensor":"ok","cameras":["#
            + withCapture.joined(separator: ",") + "]}"
    }

    @Test("the header names each camera's device; a state with another camera list is preceded by that list")
    func devicesAndListChanges() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let hello = #"{"type":"hello","protocol":1,"service":"rotationd","version":"0.1.0","sensor":null,"cameras":["# + Self.front
            + #"],"events":["state"],"samples":false}"#
        let lines = [hello, Self.state(seq: 1, cameras: [Self.front]), Self.state(seq: 2, cameras: [Self.front, Self.webcam]),
                     Self.state(seq: 3, cameras: [Self.front])]
        let service = try ClientToolsTests.scriptedService(socket: socket, lines: lines.map { "b'\($0)\\n'" }, pause: 0.1,
                                                           in: dir, tag: "svc")
        let watch = try ChildProcess(PackagePaths.binary("rotwatch"), ["--socket", socket], in: dir, tag: "w")
        // The last list change: the webcam gone again.
        #expect(watch.waitForOutput("\ncameras: front (front, mount 0°, /dev/video0)\n", timeout: Tolerance.slowReply), "\(watch.stdout)")
        watch.stop()
        service.stop()
        let out = watch.stdout.split(separator: "\n").map(String.init)
        #expect(out.first?.hasSuffix("| cameras: front (front, mount 0°, /dev/video0)") == true, "\(out)")
        // Header, the first state, then each new list before the state that brought it.
        #expect(out.count == 6, "\(out)")
        #expect(out.dropFirst().map { $0.hasPrefix("cameras:") } == [false, true, false, true, false], "\(out)")
        #expect(out[2] == "cameras: front (front, mount 0°, /dev/video0), external (external, mount 0°, /dev/video2)", "\(out)")
        // Capture angles come from the engine: front (0 − 90) mod 360, the webcam its mount.
        #expect(out[3].contains("front 270°") && out[3].contains("external 0°"), "\(out)")
    }

    @Test("the camera list names libcamera's id, the bus path and a sensor's capture nodes")
    func programNames() throws {
        let dir = try ScratchDirectory()
        let socket = dir.path("s.sock")
        let sensor = #"{"name":"back","facing":"back","mount":270,"device":"/dev/v4l-subdev1","model":"ov8865 3-0010","source":{"facing":"sensor","mount":"sensor"},"libcamera":"\\_SB_.PCI0.I2C3.CAM1","bus_path":"pci-0000:00:15.3-platform-i2c_designware.3","nodes":["/dev/video11"]}"#
        let webcam = #"{"name":"external","facing":"external","mount":0,"device":"/dev/video2","model":"UVC Camera","source":{"facing":"default","mount":"default"},"libcamera":"\\_SB_.PCI0.XHC_-1:1.0-046d:0825","bus_path":"pci-0000:00:14.0-usb-0:1:1.0","nodes":["/dev/video2"]}"#
        let hello = #"{"type":"hello","protocol":1,"service":"rotationd","version":"0.1.0","sensor":null,"cameras":["# + sensor + "," + webcam
            + #"],"events":["state"],"samples":false}"#
        let state = #"{"type":"state","seq":1,"t":3.5,"rotation":0,"orientation":"normal","tilt":"vertical","flat":false,"inputs":"accel","sensor":"ok","cameras":["#
            + sensor.dropLast() + #","capture":270,"exif":8},"# + webcam.dropLast() + #","capture":0,"exif":1}]}"#
        // Raw bytes literals keep the JSON's backslashes as they are.
        let service = try ClientToolsTests.scriptedService(socket: socket, lines: [hello, state].map { "rb'\($0)' + b'\\n'" },
                                                           pause: 0.1, in: dir, tag: "svc")
        let run = try ChildProcess.run(PackagePaths.binary("rotwatch"), ["--socket", socket, "--once"])
        service.stop()
        #expect(run.status == 0, "\(run.err)")
        let header = run.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasSuffix(#"| cameras: back (back, mount 270°, /dev/v4l-subdev1, libcamera \_SB_.PCI0.I2C3.CAM1, bus pci-0000:00:15.3-platform-i2c_designware.3, nodes /dev/video11), external (external, mount 0°, /dev/video2, libcamera \_SB_.PCI0.XHC_-1:1.0-046d:0825, bus pci-0000:00:14.0-usb-0:1:1.0)"#),
                "\(run.out)\(run.err)")
    }
}
