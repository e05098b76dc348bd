import Dispatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A program a test runs beside itself: its standard output and error go to files (a program that prints a lot
/// never blocks on a full pipe), its standard input is empty, and a sanitizer report it writes is recorded as an
/// issue of the running test once it has ended (`SanitizerReports`).
///
/// Two ways to run one: `ChildProcess(...)` starts it and returns at once, for a test that reads its output as it
/// goes, waits for a line, signals or stops it; `ChildProcess.run(...)` runs it to its end, within a timeout, and
/// returns how it ended and what it printed (`Ended`).
///
/// It gets the test's environment without the variables that would point it at a service, a supervisor or a
/// journal the test itself runs under (`removedVariables`), and with `environment` added. A rotationd it starts
/// keeps its camera memory in the child's scratch directory (`STATE_DIRECTORY`) unless `environment` names
/// another: never in the machine's `/var/lib/rotationd`, which a test run as root would leave behind, owned by
/// root, for the packaged service's user to trip over.
public final class ChildProcess {
    /// The variables of the test's environment a child does not inherit.
    public static let removedVariables = ["ROTATIOND_SOCKET", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "NO_COLOR", "JOURNAL_STREAM"]

    /// The running program.
    public let process = Process()
    /// The file its standard output goes to.
    public let stdoutURL: URL
    /// The file its standard error goes to.
    public let stderrURL: URL
    private let reports = SanitizerReports()
    private let name: String
    /// The directory of the output files when the caller gave none; removed with the child.
    private let ownDirectory: ScratchDirectory?
    /// Left once the program has ended.
    private let ended = DispatchGroup()

    /// Starts `executable` (a path, or a name looked up on PATH) with `arguments` in `directory` (the test's own
    /// when nil). Its output goes to `TAG.out` and `TAG.err` in `dir`, or in a scratch directory of its own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                in dir: ScratchDirectory? = nil, tag: String = "child") throws {
        let onPath = !executable.contains("/")
        process.executableURL = URL(fileURLWithPath: onPath ? "/usr/bin/env" : executable)
        process.arguments = onPath ? [executable] + arguments : arguments
        name = "\(URL(fileURLWithPath: executable).lastPathComponent) (\(tag))"
        ownDirectory = dir == nil ? try ScratchDirectory() : nil
        let outputs = (dir ?? ownDirectory)!.url
        var env = ProcessInfo.processInfo.environment
        for name in Self.removedVariables { env.removeValue(forKey: name) }
        env["STATE_DIRECTORY"] = outputs.appendingPathComponent("\(tag).state").path
        env.merge(environment) { $1 }
        process.environment = reports.environment(env)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        stdoutURL = outputs.appendingPathComponent("\(tag).out")
        stderrURL = outputs.appendingPathComponent("\(tag).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        ended.enter()
        process.terminationHandler = { [ended] _ in ended.leave() }
        do { try process.run() } catch {
            ended.leave()
            throw error
        }
    }

    /// What it printed on standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    /// What it printed on standard error so far.
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` seconds (for as long as it runs when nil) for its end; returns its exit status, or nil
    /// when it still runs.
    @discardableResult
    public func wait(timeout: Double?) -> Int32? {
        if let timeout {
            guard ended.wait(timeout: .now() + timeout) == .success else { return nil }
        } else {
            ended.wait()
        }
        process.waitUntilExit()
        for failure in reports.failures(of: name) { Issue.record(Comment(rawValue: failure)) }
        return process.terminationStatus
    }

    /// Sends `signal` and waits for its end; kills it when it has not ended within `timeout` seconds. Returns the
    /// exit status, or nil when it had to be killed.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: Double = Tolerance.slowReply) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let status = wait(timeout: timeout)
        if status == nil { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        return status
    }

    /// Waits until its standard output contains `text`; false after `timeout` seconds.
    public func waitForOutput(_ text: String, timeout: Double) -> Bool {
        waitUntil(timeout: timeout) { stdout.contains(text) }
    }

    /// Waits until its standard error, where the service logs, contains `text`; false after `timeout` seconds.
    public func waitForLog(_ text: String, timeout: Double) -> Bool {
        waitUntil(timeout: timeout) { stderr.contains(text) }
    }

    /// Waits until `condition` holds (true) or `timeout` seconds pass (false) (`Poll`).
    public func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        Poll.until(timeout: timeout, condition)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        for failure in reports.failures(of: name) { Issue.record(Comment(rawValue: failure)) }
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` in `directory` to its end, for at
    /// most `timeout` seconds (then it is killed), and returns how it ended and what it printed. A nil `timeout`
    /// is for a command that bounds itself (run through `timeout`, a test bed driver whose steps have their own).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                           timeout: Double? = Tolerance.toolRun) throws -> Ended {
        let start = Date()
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory)
        let status = child.wait(timeout: timeout)
        if status == nil { child.stop(SIGKILL) }
        return Ended(command: [executable] + arguments, status: status, out: child.stdout, err: child.stderr,
                     seconds: Date().timeIntervalSince(start))
    }

    /// A program run to its end (`run`): how it ended and what it printed.
    public struct Ended: Sendable, CustomStringConvertible {
        /// The program and its arguments.
        public var command: [String]
        /// Its exit status (the signal's number when a signal ended it), or nil when it still ran at the timeout.
        public var status: Int32?
        /// Its standard output.
        public var out: String
        /// Its standard error.
        public var err: String
        /// How long it ran, in seconds.
        public var seconds: Double

        /// The command, how it ended, and everything it printed, for a failure message.
        public var description: String {
            "\(command.joined(separator: " ")) \(status.map { "exited \($0)" } ?? "did not end in time")\n\(out)\(err)"
        }

        /// Its standard output, when it exited 0; otherwise throws `Failed`, with everything it printed.
        public func output() throws(Failed) -> String {
            guard status == 0 else { throw Failed(ended: self) }
            return out
        }
    }

    /// A program run to its end that did not exit 0.
    public struct Failed: Error, CustomStringConvertible {
        /// How it ended and what it printed.
        public var ended: Ended
        /// The command, how it ended, and everything it printed.
        public var description: String { ended.description }
    }
}
