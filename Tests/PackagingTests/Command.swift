import Foundation
import Testing
import TestSupport

/// A program run to completion, with what it printed. In a sanitizer run, a report it writes fails the test.
struct Command {
    var status: Int32
    var out: String
    var err: String

    /// Runs `executable` with `arguments` (a bare name is looked up on PATH) and waits for it to exit.
    /// Output goes through files, so a program that prints a lot cannot block on a full pipe.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    directory: String? = nil) throws -> Command {
        let scratch = try ScratchDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : "/usr/bin/env")
        process.arguments = executable.contains("/") ? arguments : [executable] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let reports = SanitizerReports()
        process.environment = reports.environment(env)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let outURL = scratch.url.appendingPathComponent("out")
        let errURL = scratch.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        for failure in reports.failures(of: executable) { Issue.record(Comment(rawValue: failure)) }
        return Command(status: process.terminationStatus,
                       out: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                       err: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Standard output, when the program exited 0; otherwise throws with everything it printed.
    static func output(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                       directory: String? = nil) throws -> String {
        let r = try run(executable, arguments, environment: environment, directory: directory)
        guard r.status == 0 else { throw Failure(command: ([executable] + arguments).joined(separator: " "), result: r) }
        return r.out
    }

    /// A program that exited with a status other than 0.
    struct Failure: Error, CustomStringConvertible {
        var command: String
        var result: Command
        var description: String { "\(command) exited \(result.status)\n\(result.out)\(result.err)" }
    }
}
