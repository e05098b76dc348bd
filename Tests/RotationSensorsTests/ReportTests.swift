import Foundation
import Testing
import TestSupport
import RotationEngine
import RotationProtocol

/// `rotationd --report DIR` on emulated hardware: a polled accelerometer turned while it records, a DMI
/// modalias and a webcam, recorded directly and through a running service; its archive unpacked and each member
/// checked.
@Suite("rotationd --report")
struct ReportTests {
    static let rightUp = LiveSensorTests.onda
    static let bottomUp: [String: DriverJSON] = ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]
    static let devices = ["polled.umockdev", "dmi.umockdev", "camera-webcam.umockdev"]
    /// A count of the seconds left that says a second of samples (50 or more at 50 Hz) is recorded: the first
    /// decision is made by then.
    static let aSecondRecorded = "s left, ([5-9][0-9]|[1-9][0-9]{2,}) samples"
    static let members = ["report.txt", "version.txt", "machine.txt", "list.txt", "udev.txt", "trace.csv", "states.jsonl", "picture.svg"]

    @Test("recorded directly while the device is turned twice: every member present and sensible, the picture agreeing with the states")
    func directReport() async throws {
        let scratch = try ScratchDirectory(prefix: "rotationd-report-test-"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        let r = try await Testbed.run(devices: Self.devices, steps: [
            .start,
            .wait(.stdout("^recording for 6 s: ", within: Tolerance.listing)),
            .wait(.stdout(Self.aSecondRecorded)),
            .set("iio:device0", Self.rightUp),
            // The next second's count.
            .wait(.stdout("^  [0-9]+ s left")),
            .set("iio:device0", Self.bottomUp),
            .exit(within: Tolerance.report),
        ], arguments: ["--report", dir, "--duration", "6", "--socket", dir + "/no-service.sock"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stdout.contains { $0.hasPrefix("recording directly from the sensors, as rotationd --record does: no service socket at") },
                "\(r.transcript)")
        let archive = try #require(r.stdout.last, "\(r.transcript)")
        let report = try Self.unpack(archive, in: dir)
        try Self.checkCommonMembers(report, expected: Self.members)
        let states = try Self.states(report)
        #expect(Self.rotations(states) == [0, 270, 180], "\(states)")
        let summary = try Self.text(report, "report.txt")
        #expect(summary.contains("recording: directly from the sensors") && summary.contains("rotations 0, 270, 180\n"), "\(summary)")
        #expect(r.stdout.contains { $0.hasPrefix("recorded ") && $0.hasSuffix("rotations 0, 270, 180") }, "\(r.transcript)")
        #expect(try String(contentsOfFile: String(archive.dropLast(".tar.gz".count)) + ".svg", encoding: .utf8)
                == (try Self.text(report, "picture.svg")), "the picture beside the archive is the one in it")
        #expect(!FileManager.default.fileExists(atPath: String(archive.dropLast(".tar.gz".count))), "the packed directory is left behind")
    }

    @Test("recorded through a running service while a trace turns the device: the service's raw samples, its hello and states kept beside")
    func reportThroughTheService() async throws {
        let scratch = try ScratchDirectory(prefix: "rotationd-report-test-"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        let socket = Testbed.socketPath("report")
        let trace = try Self.turnsTrace(in: dir)
        let rotationd = try BuiltProducts.require("rotationd")
        let r = try await Testbed.run(devices: Self.devices, steps: [
            .feedTrace("attr:iio:device0", trace: trace, scale: 0.019163, hz: 50, seconds: 60, burst: 1),
            .start,
            .connect(socket, within: Tolerance.slowReply),
            .disconnect,
            .exec([rotationd, "--report", dir, "--socket", socket, "--duration", "4"]),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil, "\(r.transcript)")
        let archives = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tar.gz") }
        #expect(archives.count == 1, "\(archives)")
        let report = try Self.unpack(dir + "/" + (try #require(archives.first)), in: dir)
        try Self.checkCommonMembers(report, expected: Self.members + ["service.jsonl"])
        #expect(try Self.text(report, "report.txt").contains("recording: through the service on \(socket), from its raw samples"))
        let service = try Self.text(report, "service.jsonl").split(separator: "\n").map(String.init)
        let hello = try #require(service.first.flatMap { ServerMessage.decode($0) })
        guard case .hello(let greeting) = hello else { Issue.record("service.jsonl starts with \(service.first ?? "")"); return }
        #expect(greeting.samplesAllowed && greeting.sensor?.hasPrefix("iio:device0") == true)
        let published = service.dropFirst().compactMap { line -> StateEvent? in
            if case .state(let s)? = ServerMessage.decode(line) { return s }
            return nil
        }
        #expect(published.count == service.count - 1 && !published.isEmpty, "\(service)")
        // The trace turns a quarter every 1.9 s: 4 s of it hold at least one turn.
        let states = try Self.states(report)
        #expect(Set(Self.rotations(states)).count >= 2, "\(states)")
    }

    @Test("a stop signal while recording ends the recording early, and the report is written with what was recorded")
    func stoppedEarly() async throws {
        let scratch = try ScratchDirectory(prefix: "rotationd-report-test-"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        let r = try await Testbed.run(devices: Self.devices, steps: [
            .start,
            .wait(.stdout("^recording for 60 s: ", within: Tolerance.listing)),
            .wait(.stdout(Self.aSecondRecorded)),
            .stop,
        ], arguments: ["--report", dir, "--duration", "60", "--socket", dir + "/no-service.sock"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let report = try Self.unpack(try #require(r.stdout.last, "\(r.transcript)"), in: dir)
        try Self.checkCommonMembers(report, expected: Self.members)
        let summary = try Self.text(report, "report.txt")
        #expect(summary.contains("the recording ended early: stopped by a signal"), "\(summary)")
    }

    // MARK: - The members

    /// Checks what both kinds of report hold: exactly `expected`, the version, the machine, the listing, udev's
    /// properties, a trace that parses, the states `--replay` prints for it, and a picture that agrees with them.
    static func checkCommonMembers(_ report: String, expected: [String]) throws {
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: report)) == Set(expected))
        let version = try ChildProcess.run(BuiltProducts.require("rotationd"), ["--version"]).output()
        #expect(try text(report, "version.txt") == version)
        let machine = try text(report, "machine.txt")
        #expect(machine.contains("dmi modalias: dmi:bvnINSYDECorp.:bvrBYT70A.YNCHENG.WIN.007:bd10/09/2014:svnONDA:pnV975w:"), "\(machine)")
        #expect(machine.contains("product: ONDA V975w\n") && machine.contains("kernel: Linux "), "\(machine)")
        let list = try text(report, "list.txt")
        #expect(list.contains("iio:device0: accel_3d") && list.contains("role: display accelerometer, fed to the engine")
                && list.contains("camera external: /dev/video2"), "\(list)")
        let udev = try text(report, "udev.txt")
        for line in ["iio:device0 (iio) /sys/devices/platform/accel-polled/iio:device0 name \"accel_3d\"", "  DEVNAME=/dev/iio:device0",
                     "video2 (video4linux) ", "  ID_PATH=pci-0000:00:14.0-usb-0:1:1.0", "  ID_V4L_CAPABILITIES=:capture:"] {
            #expect(udev.contains(line), "udev.txt lacks \(line): \(udev)")
        }
        let samples = try TraceFormat.parse(try text(report, "trace.csv"))
        #expect(samples.count >= 8, "\(samples.count) samples")
        let first = try #require(samples.first), last = try #require(samples.last)
        let states = try Self.states(report)
        #expect(!states.isEmpty)
        #expect(states.allSatisfy { ($0["t"] as? Double).map { first.time...last.time ~= $0 } ?? false })
        // What --replay prints for the trace, but for the cameras: the report's states carry those found, and the
        // camera recommended among them.
        let replayed = try ChildProcess.run(BuiltProducts.require("rotationd"), ["--replay", report + "/trace.csv"]).output()
            .split(separator: "\n").compactMap { Testbed.Result.object(String($0)) }
        func decisions(_ s: [[String: Any]]) -> [String] {
            s.map { o in o.filter { $0.key != "cameras" && $0.key != "preferred" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        }
        #expect(decisions(states) == decisions(replayed))
        let picture = try PictureReading(svg: text(report, "picture.svg"))
        let problems = picture.mismatches(states: states, start: first.time)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(picture.marks.filter { $0.parts.contains("rotation") }.count == rotations(states).count)
    }

    /// A member's text.
    static func text(_ report: String, _ name: String) throws -> String {
        try String(contentsOfFile: report + "/" + name, encoding: .utf8)
    }

    /// The states of `states.jsonl`, decoded, each checked as a `state` line.
    static func states(_ report: String) throws -> [[String: Any]] {
        let lines = try text(report, "states.jsonl").split(separator: "\n").map(String.init)
        for line in lines {
            guard case .state? = ServerMessage.decode(line) else { Issue.record("not a state: \(line)"); continue }
        }
        return lines.compactMap(Testbed.Result.object)
    }

    /// The rotations published, in order, each change once.
    static func rotations(_ states: [[String: Any]]) -> [Int] {
        var out: [Int] = []
        for s in states { if let r = s["rotation"] as? Int, r != out.last { out.append(r) } }
        return out
    }

    /// Unpacks `archive` with tar into `dir`; returns the report's directory, the archive's one top directory.
    static func unpack(_ archive: String, in dir: String) throws -> String {
        #expect(archive.hasPrefix(dir + "/rotationd-report-") && archive.hasSuffix(".tar.gz"), "\(archive)")
        let into = dir + "/unpacked"
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: true)
        _ = try ChildProcess.run("tar", ["-xzf", archive, "-C", into]).output()
        let top = try FileManager.default.contentsOfDirectory(atPath: into)
        #expect(top == [String((archive as NSString).lastPathComponent.dropLast(".tar.gz".count))], "\(top)")
        return into + "/" + (top.first ?? "")
    }

    /// A trace in the polled accelerometer's raw frame (its matrix swaps x and y and turns both): upright for
    /// 1.5 s, a quarter turn to right-up over 0.4 s, 1.5 s there, and back, at 50 Hz; the feed loops it.
    static func turnsTrace(in dir: String) throws -> String {
        var rows = ["t,x,y,z"]
        var t = 0.0
        func emit(_ degrees: Double) {
            rows.append(String(format: "%.2f,%.4f,%.4f,0.5", t, 9.8 * cos(degrees * .pi / 180), 9.8 * sin(degrees * .pi / 180)))
            t += 0.02
        }
        for _ in 0..<75 { emit(0) }
        for i in 1...20 { emit(90 * (1 - cos(.pi * Double(i) / 20)) / 2) }
        for _ in 0..<75 { emit(90) }
        for i in 1...20 { emit(90 - 90 * (1 - cos(.pi * Double(i) / 20)) / 2) }
        let path = dir + "/turns.csv"
        try (rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
