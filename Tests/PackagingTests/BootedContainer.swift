import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The machine's own systemd booted as PID 1 in a throwaway container, with an unpacked package laid over its
/// /usr: the package's files are seen inside only, never installed on the machine.
///
/// `systemd-nspawn --volatile=yes` boots the machine's /usr (read-only) on an empty root and /etc in memory, so
/// the first boot sets /etc up afresh: `systemd-sysusers` creates the accounts that sysusers.d files declare,
/// and the presets decide which units are enabled. The package's tree is an overlay on /usr, above the
/// machine's. Commands run inside through `nsenter`, in all the container's namespaces, with a clean
/// environment, each bounded by `timeout`. Shutting down halts the container's systemd; the namespaces, the
/// mounts and every process inside end with it. Needs root.
final class BootedContainer {
    /// The machine name, also the container's host name.
    let name: String
    /// The container's PID 1, as the machine sees it.
    let leader: pid_t
    private let nspawn: Process
    private let console: String
    private let scratch: ScratchDirectory
    private var background: [ChildProcess] = []

    /// Why this machine cannot boot a container, or nil when it can.
    static func unavailable() -> String? {
        if geteuid() != 0 { return "booting a container needs root (CI runs as root)" }
        for tool in ["/usr/bin/systemd-nspawn", "/usr/bin/nsenter", "/usr/bin/timeout"] where access(tool, X_OK) != 0 {
            return "\(tool) is missing (systemd-nspawn is in the package systemd-container; scripts/install-deps.sh installs it)"
        }
        // nspawn needs a cgroup hierarchy for systemd: the unified one, or the named systemd one beside v1's.
        let cgroups = ["/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"]
        if !cgroups.contains(where: { access($0, F_OK) == 0 }) { return "/sys/fs/cgroup holds no hierarchy systemd can run in" }
        let filesystems = (try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8)) ?? ""
        if !filesystems.split(separator: "\n").contains(where: { $0.hasSuffix("\toverlay") }) {
            return "the kernel has no overlay file system, which lays the package over /usr"
        }
        return nil
    }

    /// Boots a container with `package` (an unpacked package's root) over /usr, each of `binds` (a path on the
    /// machine, the path inside) mounted read-only, and `presets` as a preset file; returns once its systemd has
    /// finished starting up (throws after `timeout` seconds).
    init(package: String, binds: [(String, String)], presets: String, timeout: Double = Tolerance.build) throws {
        scratch = try ScratchDirectory()
        name = "rotationd-test-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        console = scratch.path("console")
        let presetFile = scratch.path("00-rotationd-test.preset")
        try presets.write(toFile: presetFile, atomically: false, encoding: .utf8)
        var args = ["300", "/usr/bin/systemd-nspawn", "--quiet", "--directory=/", "--volatile=yes",
                    "--register=no", "--keep-unit", "--machine=\(name)", "--overlay-ro=/usr:\(package)/usr:/usr",
                    "--bind-ro=\(presetFile):/etc/systemd/system-preset/00-rotationd-test.preset"]
        args += binds.map { "--bind-ro=\($0.0):\($0.1)" }
        args += ["--boot", "--", "systemd.firstboot=off"]
        _ = FileManager.default.createFile(atPath: console, contents: nil)
        let nspawn = Process()
        self.nspawn = nspawn
        // timeout bounds the container's life should the test hang: its SIGTERM halts the container. Never
        // SIGKILL for systemd-nspawn: the container's init would outlive it.
        nspawn.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        nspawn.arguments = args
        nspawn.standardInput = FileHandle.nullDevice
        nspawn.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: console))
        nspawn.standardError = nspawn.standardOutput
        try nspawn.run()
        let deadline = Date().addingTimeInterval(timeout)
        var found: pid_t?
        _ = Poll.until(timeout: deadline.timeIntervalSinceNow, every: 0.05) {
            found = Self.containerInit(below: nspawn.processIdentifier)
            return found != nil || !nspawn.isRunning
        }
        guard let found else {
            Self.halt(nspawn, leader: nil)
            throw Failure(description: "the container never started its init within \(Int(timeout)) s:\n\(Self.read(console))")
        }
        leader = found
        // systemctl answers once systemd listens on its private socket; --wait then blocks until start-up ends.
        var state = ""
        let started = try Poll.until(timeout: deadline.timeIntervalSinceNow, every: 0.1) {
            let r = try run(["systemctl", "is-system-running", "--wait"], timeout: max(1, deadline.timeIntervalSinceNow))
            state = r.out.trimmingCharacters(in: .whitespacesAndNewlines)
            return ["running", "degraded"].contains(state)
        }
        if started { return }
        shutDown()
        throw Failure(description: "the container's systemd did not finish starting within \(Int(timeout)) s (\(state)):\n\(Self.read(console))")
    }

    deinit { shutDown() }

    /// What the container printed on its console so far: systemd's start-up and shutdown.
    var consoleOutput: String { Self.read(console) }

    /// The argument list that runs `command` inside, with a clean environment, bounded by `timeout` seconds.
    private func inside(_ command: [String], timeout: Double) -> [String] {
        ["--kill-after=5", String(format: "%.1f", timeout), "/usr/bin/nsenter", "--target=\(leader)", "--all", "--",
         "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"] + command
    }

    /// Runs `command` inside to its end (at most `timeout` seconds: `timeout` ends it, so the run is not bounded
    /// again outside).
    @discardableResult
    func run(_ command: [String], timeout: Double = Tolerance.containerCommand) throws -> ChildProcess.Ended {
        try ChildProcess.run("/usr/bin/timeout", inside(command, timeout: timeout), timeout: nil)
    }

    /// Standard output of `command` run inside, when it exited 0; otherwise throws with what it printed.
    @discardableResult
    func output(_ command: [String], timeout: Double = Tolerance.containerCommand) throws -> String {
        try run(command, timeout: timeout).output()
    }

    /// Starts `command` inside and returns at once; its output goes to `TAG.out` and `TAG.err` in `dir`. It ends
    /// after `timeout` seconds, or with the container.
    func start(_ command: [String], in dir: ScratchDirectory, tag: String, timeout: Double = Tolerance.containerRun) throws -> ChildProcess {
        let child = try ChildProcess("/usr/bin/timeout", inside(command, timeout: timeout), in: dir, tag: tag)
        background.append(child)
        return child
    }

    /// Ends the commands started inside, halts the container and waits for it (killing its init after 15 s);
    /// returns whether systemd-nspawn is gone.
    ///
    /// The started commands go first: nsenter, outside, is their parent, and stops when they are stopped, as
    /// systemd's shutdown does to every process; they would then never be reaped, and the shutdown would wait
    /// for them. Each is killed with its process group (timeout's, which nsenter and the command share).
    @discardableResult
    func shutDown() -> Bool {
        for child in background where child.isRunning {
            kill(-child.process.processIdentifier, SIGKILL)
            child.wait(timeout: nil)
        }
        background.removeAll()
        Self.halt(nspawn, leader: leader)
        return !nspawn.isRunning
    }

    /// SIGTERM to systemd-nspawn (the init's parent), which halts the container's systemd; timeout then ends.
    private static func halt(_ nspawn: Process, leader: pid_t?) {
        guard nspawn.isRunning else { return }
        if let leader, let parent = parent(of: leader), parent != nspawn.processIdentifier {
            kill(parent, SIGTERM)
        } else {
            kill(nspawn.processIdentifier, SIGTERM)
        }
        if !Poll.until(timeout: Tolerance.containerHalt, every: 0.05, { !nspawn.isRunning }) {
            // Killing the init ends everything in the container, and then systemd-nspawn; without one found,
            // timeout's process group goes.
            if let leader { kill(leader, SIGKILL) } else { kill(-nspawn.processIdentifier, SIGKILL) }
        }
        nspawn.waitUntilExit()
    }

    /// The parent process of `pid`, from /proc.
    private static func parent(of pid: pid_t) -> pid_t? {
        let status = read("/proc/\(pid)/status")
        return status.split(separator: "\n").first { $0.hasPrefix("PPid:") }
            .flatMap { pid_t($0.dropFirst("PPid:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// The container's init: a descendant of `ancestor` that is PID 1 in its own PID namespace.
    private static func containerInit(below ancestor: pid_t) -> pid_t? {
        var parents: [pid_t: pid_t] = [:]
        var initial: [pid_t] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") {
                let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
                if fields.first == "PPid:", fields.count == 2 { parents[pid] = pid_t(fields[1]) }
                if fields.first == "NSpid:", fields.count > 2, fields.last == "1" { initial.append(pid) }
            }
        }
        return initial.first { pid in
            var p = pid
            while let parent = parents[p], parent > 1 {
                if parent == ancestor { return true }
                p = parent
            }
            return false
        }
    }

    private static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// The container could not be booted.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
