import Foundation
import Testing
import TestSupport

/// `Docs/examples/capture.py`, a real GStreamer capture program, against a replayed service: it asks for its
/// camera's capture angle by device node and writes the still turned upright.
///
/// The source is videotestsrc: a black 640×480 frame with a white block in its top-left corner, as the
/// camera sees it. Turned a clockwise, the block lands top-left (0), top-right (90), bottom-right (180) or
/// bottom-left (270), and a quarter turn makes the picture 480×640.
@Suite("The capture example", .serialized)
struct CaptureExampleTests {
    static let script = PackagePaths.root.appendingPathComponent("Docs/examples/capture.py").path
    static let checker = PackagePaths.root.appendingPathComponent("Tests/tools/jpeg-corner.py").path
    static let source = "videotestsrc num-buffers=1 pattern=white ! video/x-raw,width=64,height=48 ! videobox right=-576 bottom=-432 fill=black"
    static let corners = [0: "top-left", 90: "top-right", 180: "bottom-right", 270: "bottom-left"]

    /// Width and height from a JPEG's start-of-frame segment.
    static func jpegSize(_ path: String) throws -> (Int, Int)? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    @Test("for each held rotation the JPEG is turned by the service's capture angle: its size and the marked corner show it", arguments: [
        (0, Pose.upright), (90, Pose.leftUp), (180, Pose.bottomUp), (270, Pose.rightUp),
    ])
    func stillsAreUpright(rotation: Int, pose: (Double, Double, Double)) throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [pose], hold: 0.5)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"),
                                     extra: ["--camera", "back:back:90:/dev/video0", "--camera", "front:front:270:/dev/video1"], in: dir)
        #expect(service.waitUntilServing())
        // The back camera is asked for through a symlink to its node, as a program opening /dev/v4l/by-id/... would.
        try FileManager.default.createSymbolicLink(atPath: dir.path("by-id-cam"), withDestinationPath: "/dev/video0")
        var expected: [String: (Int, Int, String)] = [:]
        for (tag, device, angle) in [("back", dir.path("by-id-cam"), (90 + rotation) % 360), ("front", "/dev/video1", (270 - rotation + 360) % 360)] {
            let out = dir.path("\(tag).jpg")
            let run = try ChildProcess.run("/usr/bin/python3", [Self.script, "--socket", service.socket, "--device", device,
                                                                "--source", Self.source, out])
            #expect(run.status == 0, "\(tag): \(run.err)")
            #expect(run.out.contains("turned \(angle) degrees clockwise"), "\(tag): \(run.out)")
            let size = try #require(try Self.jpegSize(out), "\(tag): not a JPEG")
            let quarter = angle % 180 == 90
            #expect(size.0 == (quarter ? 480 : 640) && size.1 == (quarter ? 640 : 480), "\(tag) at \(rotation)°: \(size)")
            expected[out] = (size.0, size.1, Self.corners[angle]!)
        }
        #expect(service.child.stop() == 0)
        let check = try ChildProcess.run("/usr/bin/python3", [Self.checker] + expected.keys.sorted())
        #expect(check.status == 0, "\(check.err)")
        for line in check.out.split(separator: "\n") {
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 4, let want = expected[parts[0]] else {
                Issue.record("unexpected checker line \(line)")
                continue
            }
            #expect(parts[1] == "\(want.0)" && parts[2] == "\(want.1)" && parts[3] == want.2,
                    "at rotation \(rotation): \(line), expected the mark \(want.2)")
        }
        #expect(check.out.split(separator: "\n").count == 2, "\(check.out)")
    }

    @Test("a device the service does not list is refused with exit status 2 and the list of cameras")
    func unknownDevice() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [Pose.upright], hold: 0.5)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--camera", "back:back:90:/dev/video0"], in: dir)
        #expect(service.waitUntilServing())
        let run = try ChildProcess.run("/usr/bin/python3", [Self.script, "--socket", service.socket, "--device", "/dev/video9",
                                                            "--timeout", "1", "--source", Self.source, dir.path("x.jpg")])
        #expect(run.status == 2, "\(run.err)")
        #expect(run.err.contains("no capture angle for /dev/video9") && run.err.contains("back (/dev/video0)"), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("x.jpg")))
        #expect(service.child.stop() == 0)
    }
}
