import Foundation
import Testing
import TestSupport

/// Runs a program (the real `rotationd` unless told otherwise) inside an umockdev testbed through
/// `Tests/fixtures/umockdev-driver.py`, and decodes what it and its socket clients received.
///
/// The binary is the one `BuiltProducts` finds: in `ROTATIOND_BIN_DIR` when set, else beside the test bundle.
struct CameraRun {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    var status: Int32
    var stdout: [String]
    var stderr: [String]

    /// The driver's failure line, if a step failed.
    var failure: String? { stderr.first { $0.hasPrefix("driver:") } }
    /// Everything, for failure messages.
    var transcript: String { (stdout + stderr).joined(separator: "\n") }

    /// The messages received on the `n`th socket connection (from 1), decoded, in order.
    func socket(_ n: Int) -> [[String: Any]] {
        let prefix = "socket \(n): "
        return stdout.filter { $0.hasPrefix(prefix) }.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8))) as? [String: Any]
        }
    }

    /// The camera objects of a hello or state message.
    static func cameras(_ message: [String: Any]?) -> [[String: Any]] { message?["cameras"] as? [[String: Any]] ?? [] }

    /// One camera as "name facing mount device source.facing source.mount", for compact comparisons.
    static func summary(_ c: [String: Any]) -> String {
        let source = c["source"] as? [String: Any]
        return ["\(c["name"] ?? "-")", "\(c["facing"] ?? "-")", "\(c["mount"] ?? "-")", "\(c["device"] ?? "-")",
                "\(source?["facing"] ?? "-")", "\(source?["mount"] ?? "-")"].joined(separator: " ")
    }

    /// A socket path in /tmp, short enough for a Unix address.
    static func socketPath(_ tag: String) -> String {
        "/tmp/rcam-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    /// Runs `program` (default: rotationd) with `arguments` in a testbed with `devices` and `steps`.
    static func run(devices: [String], steps: [[Any]], arguments: [String], program: String? = nil) throws -> CameraRun {
        let binary = try program ?? BuiltProducts.require("rotationd")
        let stepsJSON = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        var args = ["/usr/bin/python3", root.appendingPathComponent("Tests/fixtures/umockdev-driver.py").path]
        for d in devices { args += ["--device", d] }
        args += ["--actions", stepsJSON, "--", binary] + arguments
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-wrapper")
        p.arguments = args
        let reports = SanitizerReports()
        p.environment = reports.environment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-cameras-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        try p.run()
        p.waitUntilExit()
        for failure in reports.failures(of: "\(binary) under umockdev") { Issue.record(Comment(rawValue: failure)) }
        func lines(_ url: URL) throws -> [String] {
            String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return CameraRun(status: p.terminationStatus, stdout: try lines(outURL), stderr: try lines(errURL))
    }
}
