import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// `rotationd --replay` as a command: malformed files, `--no-gyro`, `--realtime` and camera options.
@Suite("rotationd --replay on the command line")
struct ReplayCommandTests {
    /// `rotationd ARGUMENTS` run to its end (`ChildProcess.run`), within what a replay of a few seconds takes.
    static func rotationd(_ arguments: [String]) throws -> ChildProcess.Ended {
        try ChildProcess.run(PackagePaths.binary("rotationd"), arguments, timeout: Tolerance.replayRun)
    }

    /// `seconds` of upright then `seconds` of left edge up at 100 Hz, the quarter turn made over the first half's
    /// last 0.3 s, with gyroscope columns that measure it (about −z) and read nearly zero otherwise.
    static func gyroTrace(seconds: Double) -> String {
        var text = "t,x,y,z,gx,gy,gz\n"
        let n = Int(seconds * 100)
        let turn = 30
        for i in 0..<(2 * n) {
            let k = i - (n - turn)
            let angle = k < 0 ? 0 : Double.pi / 2 * Double(min(k + 1, turn)) / Double(turn)
            let rate = (0..<turn).contains(k) ? -Double.pi / 2 / (Double(turn) / 100) : 0.001
            text += String(format: "%.3f,%.3f,%.3f,0.5,0.001,-0.002,%.4f\n", Double(i) / 100, 9.79 * sin(angle), -9.79 * cos(angle), rate)
        }
        return text
    }

    /// Malformed traces: content, the line the problem is on, and a word the reason must contain. Each has
    /// valid samples before the bad line, which must not be printed.
    static let malformed: [(name: String, text: String, line: Int, reason: String)] = [
        ("header", "time,x,y,z\n0,0,-9.8,0\n", 1, "header"),
        ("fields", "t,x,y,z\n0,0,-9.8,0\n0.01,0,-9.8,0\n0.02,0,-9.8\n", 4, "3 fields"),
        ("number", "t,x,y,z\n0,0,-9.8,0\n0.01,0,ten,0\n", 3, "field y"),
        ("nan", "t,x,y,z,gx,gy,gz\n0,0,-9.8,0,0,0,0\n0.01,0,-9.8,0,nan,0,0\n", 3, "field gx"),
        ("backwards", "t,x,y,z\n0,0,-9.8,0\n0.02,0,-9.8,0\n0.01,0,-9.8,0\n", 4, "backwards"),
        ("partial-gyro", "t,x,y,z,gx,gy,gz\n0,0,-9.8,0,0,0,0\n0.01,0,-9.8,0,0.1,,\n", 3, "all three empty"),
        ("empty", "", 1, "no header"),
    ]

    @Test("a malformed trace exits 2 naming the file, the line and the problem, and prints nothing",
          arguments: malformed.map(\.name))
    func malformedTrace(_ name: String) throws {
        let entry = try #require(Self.malformed.first { $0.name == name })
        let dir = try ScratchDirectory()
        let path = dir.path("\(name).csv")
        try entry.text.write(toFile: path, atomically: false, encoding: .utf8)
        let r = try Self.rotationd(["--replay", path])
        #expect(r.status == 2)
        #expect(r.err.contains(path), "\(r.err)")
        #expect(r.err.contains("line \(entry.line):"), "\(r.err)")
        #expect(r.err.contains(entry.reason), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test("a bad line at the end of a long trace is found before any state is printed")
    func wholeFileValidatedFirst() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("late.csv")
        var text = Self.gyroTrace(seconds: 2)
        text += "4.0,0,-9.8\n"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let r = try Self.rotationd(["--replay", path])
        #expect(r.status == 2)
        #expect(r.err.contains("\(path): line 402:"), "\(r.err)")
        #expect(r.out.isEmpty)
        // The same trace without the bad line does publish.
        try Self.gyroTrace(seconds: 2).write(toFile: path, atomically: false, encoding: .utf8)
        let good = try Self.rotationd(["--replay", path])
        #expect(good.status == 0)
        #expect(good.out.contains("\"orientation\":\"left-up\""))
    }

    @Test("a trace file that cannot be read exits 2 naming it")
    func missingTrace() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("absent.csv")
        let r = try Self.rotationd(["--replay", path])
        #expect(r.status == 2)
        #expect(r.err.contains(path))
        #expect(r.out.isEmpty)
    }

    @Test("--no-gyro replays a gyroscope trace on the accelerometer alone")
    func noGyro() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("gyro.csv")
        try Self.gyroTrace(seconds: 1).write(toFile: path, atomically: false, encoding: .utf8)
        let fused = try Self.rotationd(["--replay", path])
        let plain = try Self.rotationd(["--replay", path, "--no-gyro"])
        #expect(fused.status == 0 && plain.status == 0)
        let fusedLines = fused.out.split(separator: "\n")
        let plainLines = plain.out.split(separator: "\n")
        #expect(!fusedLines.isEmpty && !plainLines.isEmpty)
        #expect(fusedLines.allSatisfy { $0.contains("\"inputs\":\"accel+gyro\"") })
        #expect(plainLines.allSatisfy { $0.contains("\"inputs\":\"accel\"") })
        // Both reach the same rotation.
        #expect(fusedLines.last?.contains("\"orientation\":\"left-up\"") == true)
        #expect(plainLines.last?.contains("\"orientation\":\"left-up\"") == true)
    }

    @Test("--realtime paces the replay by the trace's timestamps; without it the replay runs flat out")
    func realtime() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("second.csv")
        // 0.99 s from the first sample to the last.
        try Self.gyroTrace(seconds: 0.5).write(toFile: path, atomically: false, encoding: .utf8)
        let paced = try Self.rotationd(["--replay", path, "--realtime"])
        #expect(paced.status == 0)
        #expect(paced.seconds >= 0.9, "took \(paced.seconds) s")
        #expect(!paced.out.isEmpty)
        let flat = try Self.rotationd(["--replay", path])
        #expect(flat.status == 0)
        #expect(flat.out == paced.out)
    }

    @Test("--camera refuses a repeated name, an over-long name, a name JSON would escape and a seventh camera; six long names fit a line")
    func cameraLimits() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("t.csv")
        try Self.gyroTrace(seconds: 0.5).write(toFile: path, atomically: false, encoding: .utf8)
        let twice = try Self.rotationd(["--replay", path, "--camera", "cam:front:0", "--camera", "cam:back:90"])
        #expect(twice.status == 2)
        #expect(twice.err.contains("cam") && twice.err.contains("already configured"), "\(twice.err)")
        let long = String(repeating: "x", count: 33)
        let tooLong = try Self.rotationd(["--replay", path, "--camera", "\(long):front:0"])
        #expect(tooLong.status == 2)
        #expect(tooLong.err.contains("at most 32"), "\(tooLong.err)")
        let escaped = try Self.rotationd(["--replay", path, "--camera", "a\u{1}b:front:0"])
        #expect(escaped.status == 2)
        #expect(escaped.err.contains("control characters, quotes or backslashes"), "\(escaped.err)")
        let seven = (1...7).flatMap { ["--camera", "c\($0):front:0"] }
        let many = try Self.rotationd(["--replay", path] + seven)
        #expect(many.status == 2)
        #expect(many.err.contains("at most 6"), "\(many.err)")
        #expect(twice.out.isEmpty && tooLong.out.isEmpty && escaped.out.isEmpty && many.out.isEmpty)
        // Six 32-byte names with 64-byte devices keep each line within 4096 bytes.
        let six = (0..<6).flatMap { i in
            ["--camera", String(repeating: "n", count: 31) + "\(i):external:270:/" + String(repeating: "d", count: 62) + "\(i)"]
        }
        let fits = try Self.rotationd(["--replay", path] + six)
        #expect(fits.status == 0, "\(fits.err)")
        let lines = fits.out.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.utf8.count < 4096 })
    }

    @Test("--camera takes a fifth field, the panel, after a device or an empty one; a replay of a convertible publishes its posture and each camera's panel and direction")
    func cameraPanelAndPosture() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("fold.csv")
        // Two seconds closed, a second's opening, three seconds as a laptop at 110°: the lid reads
        // Rx(180° − hinge)·(0, 0, g), the base (0, 0, g).
        var text = "t,x,y,z,bx,by,bz\n"
        for i in 0..<300 {
            let t = Double(i) / 50
            let hinge = t < 2 ? 2 : min(110, 2 + (t - 2) * 108)
            let a = (180 - hinge) * Double.pi / 180
            text += String(format: "%.3f,0.01,%.4f,%.4f,0.02,-0.01,9.79\n", t, -9.79 * sin(a), 9.79 * cos(a))
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let run = try Self.rotationd(["--replay", path, "--camera", "front:front:0", "--camera", "world:front:0::base",
                                      "--camera", "cam:back:0:/dev/video0:lid"])
        #expect(run.status == 0, "\(run.err)")
        let last = try #require(run.out.split(separator: "\n").last.map(String.init))
        #expect(last.contains(#""posture":"laptop","hinge":1"#), "\(last)")
        #expect(last.contains(#""name":"world","facing":"front","mount":0,"device":null"#), "\(last)")
        #expect(last.contains(#""nodes":[],"panel":"base","infrared":false,"capture":0,"exif":1,"direction":"sideways"}"#), "\(last)")
        #expect(last.contains(#""device":"/dev/video0""#) && last.contains(#""panel":"lid","infrared":false,"capture":0,"exif":1,"direction":"backward"}"#), "\(last)")
        #expect(run.out.contains(#""posture":"closed""#))
        let bad = try Self.rotationd(["--replay", path, "--camera", "world:front:0::hinge"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("PANEL is \"hinge\"") && bad.err.contains("base"), "\(bad.err)")
        #expect(bad.out.isEmpty)
    }
}
