import Foundation
import Testing
import TestSupport

/// Clients in a sandbox that shows them nothing of the host but the runtime (`/usr`) and rotationd's
/// socket, the way Flatpak shows an application `--filesystem=/run/rotationd:ro` or
/// `--filesystem=xdg-run/rotationd.sock` (README): bubblewrap, Flatpak's own sandboxing tool, with every
/// namespace unshared (no network, no host processes, no host /run, /tmp or home) and a cleared environment.
@Suite("Sandboxed clients", .serialized)
struct SandboxClientTests {
    /// bwrap's arguments for a sandbox with the runtime, the directories `binary` loads libraries from
    /// (a debug build's Swift runtime), `binds` (host path, sandbox path), and nothing else.
    static func sandbox(_ binary: String, binds: [(String, String)], user: Bool = false, environment: [String: String] = [:]) throws -> [String] {
        var args = ["--unshare-all", "--die-with-parent", "--clearenv", "--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        if user { args += ["--unshare-user", "--uid", "1000", "--gid", "1000"] }
        for dir in try libraryDirectories(binary) { args += ["--ro-bind", dir, dir] }
        for (host, inside) in binds { args += ["--ro-bind", host, inside] }
        for (k, v) in environment.sorted(by: { $0.key < $1.key }) { args += ["--setenv", k, v] }
        return args
    }

    /// The directories outside the runtime that `binary`'s shared libraries come from.
    static func libraryDirectories(_ binary: String) throws -> [String] {
        let ldd = try ChildProcess.run("/usr/bin/ldd", [binary])
        var dirs: Set<String> = []
        for line in ldd.out.split(separator: "\n") {
            guard let arrow = line.range(of: "=> /") else { continue }
            let path = line[line.index(before: arrow.upperBound)...].split(separator: " ").first.map(String.init) ?? ""
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.hasPrefix("/usr/") && !parent.hasPrefix("/lib") { dirs.insert(parent) }
        }
        return dirs.sorted()
    }

    /// Waits until the service publishes a state with `rotation`, so that a client's first state has it.
    static func waitForRotation(_ rotation: Int, socket: String) throws -> Bool {
        let client = try TestSocket(path: socket)
        defer { client.close() }
        while let line = client.readLine(timeout: Tolerance.slowReply) {
            if JSONLine.int(line, "rotation") == rotation { return true }
        }
        return false
    }

    static func bwrap() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
            throw OrientationExampleTests.ToolMissing(description: "/usr/bin/bwrap is missing: install bubblewrap (scripts/install-deps.sh does)")
        }
        return "/usr/bin/bwrap"
    }

    @Test("rotwatch and the Python subscriber, shown only the runtime and the system socket's directory read-only, get the greeting and the state")
    func systemSocket() throws {
        let bwrap = try Self.bwrap()
        let dir = try ScratchDirectory()
        let run = dir.path("run/rotationd")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [Pose.leftUp], hold: 0.5)
        let service = try ServiceRun(trace: trace, socket: run + "/rotationd.sock", extra: ["--camera", "back:back:90:/dev/video0"], in: dir)
        #expect(service.waitUntilServing())
        #expect(try Self.waitForRotation(90, socket: service.socket))
        let rotwatch = PackagePaths.binary("rotwatch")
        let args = try Self.sandbox(rotwatch, binds: [(run, "/run/rotationd"), (rotwatch, "/app/bin/rotwatch")])
        // What the sandbox holds: /run has the socket's directory and nothing more, and no environment
        // names a socket: the client finds the system socket by itself.
        let look = try ChildProcess.run(bwrap, args + ["--", "/bin/sh", "-c", "ls -A /run /run/rotationd; env"])
        #expect(look.status == 0, "\(look.err)")
        #expect(look.out.split(separator: "\n").filter { !$0.hasPrefix("PWD=") && !$0.hasPrefix("SHLVL=") && !$0.hasPrefix("_=") }
                == ["/run:", "rotationd", "/run/rotationd:", "rotationd.sock"], "\(look.out)")
        let watch = try ChildProcess.run(bwrap, args + ["--", "/app/bin/rotwatch", "--once"])
        #expect(watch.status == 0, "\(watch.err)")
        #expect(watch.out.contains("on /run/rotationd/rotationd.sock") && watch.out.contains("left-up   90°") && watch.out.contains("back 180°"),
                "\(watch.out)\(watch.err)")
        let python = try Self.sandbox("/usr/bin/python3", binds: [(run, "/run/rotationd"),
                                                                  (PackagePaths.root.appendingPathComponent("Docs/examples").path, "/app/examples")])
        let sub = try ChildProcess.run(bwrap, python + ["--", "/usr/bin/python3", "/app/examples/subscribe.py", "--count", "1", "--json"])
        #expect(sub.status == 0, "\(sub.err)")
        #expect(sub.out.contains("\"rotation\":90") && sub.out.contains("\"exif\":3"), "\(sub.out)\(sub.err)")
        // Without the socket the same sandbox holds no service, and the client says so.
        let none = try ChildProcess.run(bwrap, try Self.sandbox(rotwatch, binds: [(rotwatch, "/app/bin/rotwatch")])
                                        + ["--", "/app/bin/rotwatch", "--once"])
        #expect(none.status == 2 && none.err.contains("no rotation service at /run/rotationd/rotationd.sock"), "\(none.err)")
        #expect(service.child.stop() == 0)
    }

    @Test("an unprivileged client shown only a per-user service's socket in its runtime directory finds it there")
    func userSocket() throws {
        let bwrap = try Self.bwrap()
        let dir = try ScratchDirectory()
        let trace = dir.path("held.csv")
        try SyntheticTraces.write(to: trace, lead: 0, poses: [Pose.rightUp], hold: 0.5)
        let socket = dir.path("rotationd.sock")
        let service = try ServiceRun(trace: trace, socket: socket, extra: ["--camera", "back:back:90:/dev/video0"], in: dir)
        #expect(service.waitUntilServing())
        #expect(try Self.waitForRotation(270, socket: service.socket))
        let rotwatch = PackagePaths.binary("rotwatch")
        let args = try Self.sandbox(rotwatch, binds: [(socket, "/run/user/1000/rotationd.sock"), (rotwatch, "/app/bin/rotwatch")],
                                    user: true, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        let watch = try ChildProcess.run(bwrap, args + ["--", "/app/bin/rotwatch", "--once", "--json"])
        #expect(watch.status == 0, "\(watch.err)")
        #expect(watch.out.contains("\"rotation\":270") && watch.out.contains("\"capture\":0,\"exif\":1"), "\(watch.out)\(watch.err)")
        #expect(service.child.stop() == 0)
    }
}
