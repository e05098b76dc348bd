import Foundation
import Testing
import TestSupport

/// `Docs/examples/still.py` and `Docs/examples/record.py` against a replayed service, their files read back by
/// tools nobody here wrote: exiftool (the JPEG's EXIF Orientation, the MP4 track's rotation), ffprobe (the
/// MP4's display matrix) and ffmpeg, which turns a decoded frame by the matrix as players do.
///
/// The source is the capture example's test frame: black 640×480 with a white block in its top-left corner
/// as the camera sees it. The still keeps those pixels; a frame decoded from the MP4 and turned by its
/// matrix has the block top-left (0), top-right (90), bottom-right (180) or bottom-left (270).
@Suite("Orientation examples read back by outside tools", .serialized)
struct OrientationExampleTests {
    static let examples = PackagePaths.root.appendingPathComponent("Docs/examples")
    static let still = examples.appendingPathComponent("still.py").path
    static let record = examples.appendingPathComponent("record.py").path
    static let frame = "pattern=white ! video/x-raw,width=64,height=48,framerate=10/1 ! videobox right=-576 bottom=-432 fill=black"
    static let exif = [0: 1, 90: 6, 180: 3, 270: 8]

    /// An outside tool's path; the test fails naming the package when it is missing.
    static func tool(_ name: String, package: String) throws -> String {
        let path = "/usr/bin/\(name)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolMissing(description: "\(path) is missing: install \(package) (scripts/install-deps.sh does)")
        }
        return path
    }

    struct ToolMissing: Error, CustomStringConvertible { var description: String }

    /// Runs an outside tool and returns its standard output, trimmed.
    static func read(_ tool: String, _ args: [String]) throws -> String {
        let r = try ChildProcess.run(tool, args, timeout: Tolerance.longRun)
        #expect(r.status == 0, "\(tool) \(args): \(r.err)")
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("for each rotation and both facings, the still's EXIF Orientation is the service's, its pixels as captured, and the MP4 track turns the frames by the capture angle", arguments: [
        (0, Pose.upright), (90, Pose.leftUp), (180, Pose.bottomUp), (270, Pose.rightUp),
    ])
    func filesCarryTheAngle(rotation: Int, pose: (Double, Double, Double)) throws {
        let exiftool = try Self.tool("exiftool", package: "libimage-exiftool-perl")
        let ffprobe = try Self.tool("ffprobe", package: "ffmpeg")
        let ffmpeg = try Self.tool("ffmpeg", package: "ffmpeg")
        let dir = try ScratchDirectory()
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [pose], hold: 0.5)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"),
                                     extra: ["--camera", "back:back:90:/dev/video0", "--camera", "front:front:270:/dev/video1"], in: dir)
        #expect(service.waitUntilServing())
        var corners: [String: (Int, Int, String)] = [:]
        // back, mount 90: (90 + r) mod 360; front, mount 270: (270 − r) mod 360. Asked by name and by node.
        for (facing, key, angle) in [("back", "back", (90 + rotation) % 360), ("front", "/dev/video1", (270 - rotation + 360) % 360)] {
            let jpeg = dir.path("\(facing).jpg"), mp4 = dir.path("\(facing).mp4")
            let s = try ChildProcess.run("/usr/bin/python3", [Self.still, "--socket", service.socket, "--camera", key,
                                                              "--source", "videotestsrc num-buffers=1 \(Self.frame)", jpeg],
                                         timeout: Tolerance.longRun)
            #expect(s.status == 0, "\(facing): \(s.err)")
            #expect(s.out.contains("EXIF Orientation \(Self.exif[angle]!)"), "\(facing): \(s.out)")
            let orientation = try Self.read(exiftool, ["-n", "-s3", "-Orientation", jpeg])
            #expect(orientation == "\(Self.exif[angle]!)", "\(facing) at \(rotation)°: EXIF Orientation \(orientation), capture angle \(angle)")
            corners[jpeg] = (640, 480, "top-left")

            let r = try ChildProcess.run("/usr/bin/python3", [Self.record, "--socket", service.socket, "--camera", key,
                                                              "--source", "videotestsrc num-buffers=10 \(Self.frame)", mp4],
                                         timeout: Tolerance.longRun)
            #expect(r.status == 0, "\(facing): \(r.err)")
            #expect(r.out.contains("turns it \(angle) degrees clockwise"), "\(facing): \(r.out)")
            // exiftool gives the track's rotation clockwise; ffprobe the display matrix's, counter-clockwise,
            // and nothing for the identity.
            let turn = try Self.read(exiftool, ["-n", "-s3", "-Rotation", mp4])
            #expect(turn == "\(angle)", "\(facing) at \(rotation)°: exiftool Rotation \(turn), capture angle \(angle)")
            let matrix = try Self.read(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                                 "-of", "csv=p=0", mp4])
            let clockwise = matrix.isEmpty ? 0 : ((-(Int(matrix) ?? 1)) % 360 + 360) % 360
            #expect(clockwise == angle, "\(facing) at \(rotation)°: ffprobe rotation \(matrix), capture angle \(angle)")
            let decoded = dir.path("\(facing)-frame.jpg")
            _ = try Self.read(ffmpeg, ["-v", "error", "-y", "-i", mp4, "-frames:v", "1", decoded])
            let quarter = angle % 180 == 90
            corners[decoded] = (quarter ? 480 : 640, quarter ? 640 : 480, CaptureExampleTests.corners[angle]!)
        }
        #expect(service.child.stop() == 0)
        let check = try ChildProcess.run("/usr/bin/python3", [CaptureExampleTests.checker] + corners.keys.sorted())
        #expect(check.status == 0, "\(check.err)")
        let lines = check.out.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == corners.count, "\(check.out)")
        for parts in lines where parts.count == 4 {
            let want = try #require(corners[parts[0]])
            #expect(parts[1] == "\(want.0)" && parts[2] == "\(want.1)" && parts[3] == want.2,
                    "at rotation \(rotation): \(parts), expected \(want)")
        }
    }

    @Test("a recording keeps the angle of its first frame when the device turns while it records")
    func lockedAtTheFirstFrame() throws {
        let exiftool = try Self.tool("exiftool", package: "libimage-exiftool-perl")
        let dir = try ScratchDirectory()
        let trace = dir.path("turn.csv")
        // Upright for 2.5 s, then left-up: the back camera (mount 90) goes from 90° to 180°.
        try SyntheticTraces.write(to: trace, lead: 2.5, poses: [Pose.leftUp], hold: 5)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--camera", "back:back:90:/dev/video0"], in: dir)
        #expect(service.waitUntilServing())
        let mp4 = dir.path("turned.mp4")
        // A live source: 45 frames at 10 per second take 4.5 s, through the turn.
        let r = try ChildProcess.run("/usr/bin/python3", [Self.record, "--socket", service.socket, "--camera", "/dev/video0",
                                                          "--source", "videotestsrc is-live=true num-buffers=45 \(Self.frame)", mp4],
                                     timeout: Tolerance.longRun)
        #expect(service.child.stop() == 0)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("turns it 90 degrees clockwise, the angle at its first frame"), "\(r.out)")
        #expect(r.out.contains("the device turned during the recording (to 180 degrees); the track keeps 90"), "\(r.out)")
        #expect(try Self.read(exiftool, ["-n", "-s3", "-Rotation", mp4]) == "90")
    }

    @Test("a camera the service does not list is refused with exit status 2 and the list of cameras")
    func unknownCamera() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [Pose.upright], hold: 0.5)
        let service = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--camera", "back:back:90:/dev/video0"], in: dir)
        #expect(service.waitUntilServing())
        for script in [Self.still, Self.record] {
            let out = dir.path("x")
            let r = try ChildProcess.run("/usr/bin/python3", [script, "--socket", service.socket, "--camera", "/dev/video9",
                                                              "--timeout", "1", "--source", "videotestsrc num-buffers=1", out])
            #expect(r.status == 2, "\(r.err)")
            #expect(r.err.contains("no capture angle for /dev/video9") && r.err.contains("back (/dev/video0)"), "\(r.err)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(service.child.stop() == 0)
    }
}
