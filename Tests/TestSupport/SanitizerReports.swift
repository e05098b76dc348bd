import Foundation

/// The sanitizer reports of one program a test spawns, for the test to record as failures.
///
/// In a sanitizer run (`make test-sanitizers`) `ASAN_OPTIONS` or `TSAN_OPTIONS` is set and every spawned
/// executable is instrumented. Each program a helper starts gets its own `log_path` (a later option overrides an
/// earlier one), so a report it writes is found once it has exited, and the helper that ran it records it as a
/// failure of the running test (`Issue.record`). Outside a sanitizer run this does nothing.
public final class SanitizerReports {
    /// The option variables a `log_path` is added to, when they are set.
    public static let variables = ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"]

    private let directory: String?

    /// Prepares a report location when a sanitizer option variable is set.
    public init() {
        let env = ProcessInfo.processInfo.environment
        guard Self.variables.contains(where: { env[$0] != nil }) else { directory = nil; return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-sanitizer-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        directory = dir
    }

    /// `environment` (the test's own when nil) with this program's `log_path` added to every sanitizer option
    /// variable that is set.
    public func environment(_ environment: [String: String]? = nil) -> [String: String] {
        var env = environment ?? ProcessInfo.processInfo.environment
        guard let directory else { return env }
        for name in Self.variables {
            if let options = env[name] { env[name] = options + ":log_path=\(directory)/report" }
        }
        return env
    }

    /// The reports written so far, one string per report file; removes them.
    public func take() -> [String] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().compactMap { name in
            let path = directory + "/" + name
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try? String(contentsOfFile: path, encoding: .utf8)
        }
    }

    /// Each report written so far, headed by `program`'s name, for `Issue.record`; removes them.
    public func failures(of program: String) -> [String] {
        take().map { "sanitizer report from \(program):\n\($0)" }
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
