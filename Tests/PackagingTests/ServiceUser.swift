import Foundation
import TestSupport

/// The user the packaged service runs as, created by the package's own sysusers.d file, seen by programs run
/// in a private mount namespace and never added to the machine itself.
///
/// `systemd-sysusers --root` adds the user to scratch copies of the machine's account files; `run` starts a
/// program in a mount namespace where those copies are bound over /etc/passwd and /etc/group. Needs root.
final class ServiceUser {
    /// The user (and group) name the package's sysusers.d file declares.
    static let name = "rotationd"

    let scratch: ScratchDirectory
    /// The unpacked package the user, the udev rule and the binaries come from.
    let package: String

    /// Creates the user from `package`'s sysusers.d file.
    init(package: String) throws {
        self.package = package
        scratch = try ScratchDirectory()
        let etc = scratch.path("etc")
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        for file in ["passwd", "group", "shadow", "gshadow"] {
            try FileManager.default.copyItem(atPath: "/etc/" + file, toPath: etc + "/" + file)
        }
        _ = try ChildProcess.run("systemd-sysusers", ["--root=\(scratch.path)", package + "/usr/lib/sysusers.d/rotationd.conf"]).output()
    }

    /// The user's line in the scratch /etc/passwd, split into its fields.
    func passwdEntry() throws -> [String] {
        let passwd = try String(contentsOfFile: scratch.path("etc/passwd"), encoding: .utf8)
        let line = passwd.split(separator: "\n").first { $0.hasPrefix(Self.name + ":") }
        return line.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
    }

    /// Runs `executable` as root in a private mount namespace where the user exists, to its end (at most `timeout`
    /// seconds; nil for a program that bounds itself, as the test bed's driver does with its steps' timeouts).
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
             timeout: Double? = Tolerance.toolRun) throws -> ChildProcess.Ended {
        let script = "mount --bind \"$1\" /etc/passwd && mount --bind \"$2\" /etc/group && shift 2 && exec \"$@\""
        return try ChildProcess.run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh",
                                                scratch.path("etc/passwd"), scratch.path("etc/group"), executable] + arguments,
                                    environment: environment, timeout: timeout)
    }
}
