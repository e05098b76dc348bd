import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// Socket activation, sd_notify, the installed units and peer-credential checks, with the real binaries.
@Suite("systemd integration and permissions", .serialized)
struct SystemdIntegrationTests {
    @Test("socket activation through systemd-socket-activate: the passed socket is served and never unlinked")
    func socketActivation() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let socket = dir.path("a.sock")
        let child = try ChildProcess("/usr/bin/systemd-socket-activate",
                                     ["-l", socket, PackagePaths.binary("rotationd"), "--replay", trace, "--serve"], in: dir, tag: "act")
        // systemd-socket-activate binds and listens before it starts rotationd: a connection waits for it.
        #expect(ServiceRun.waitUntilAccepting(socket, of: child), "\(child.stderr)")
        let c = try TestSocket(path: socket)
        let hello = try #require(c.readLine(timeout: Tolerance.slowReply).flatMap(JSONLine.object), "\(child.stderr)")
        #expect(hello["type"] as? String == "hello")
        #expect(JSONLine.type(c.readLine() ?? "") == "state")
        #expect(child.stderr.contains("socket-activated"))
        #expect(child.stop(SIGTERM) == 0)
        #expect(FileManager.default.fileExists(atPath: socket), "a socket the service did not create stays")
    }

    @Test("sd_notify: READY=1, STATUS, WATCHDOG=1 at half of WATCHDOG_USEC and STOPPING=1, to an abstract socket")
    func notifyProtocol() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let name = "rotationd-test-\(UUID().uuidString.prefix(8))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let len = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count)
        let rc = withUnsafePointer(to: &addr) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        try #require(rc == 0)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"),
                                 environment: ["NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "200000"], in: dir)
        var messages: [String] = []
        // Every 0.1 s once serving: four of them come soon; the deadline is only for a service that never sends them.
        let deadline = Date().addingTimeInterval(Tolerance.slowReply)
        while Date() < deadline && messages.filter({ $0 == "WATCHDOG=1" }).count < 4 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            if n > 0 { messages += String(decoding: buf[..<n], as: UTF8.self).split(separator: "\n").map(String.init) }
        }
        #expect(messages.contains("READY=1"))
        #expect(messages.contains { $0.hasPrefix("STATUS=Serving on ") })
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 4, "\(messages)")
        #expect(run.child.stop() == 0)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var tail: [String] = []
        while poll(&p, 1, 200) > 0 {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            tail += String(decoding: buf[..<n], as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(tail.contains("STOPPING=1"))
    }

    @Test("the installed units pass systemd-analyze verify, with ExecStart pointing at the installed binary")
    func unitsVerify() throws {
        let dir = try ScratchDirectory()
        let prefix = dir.path("prefix")
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: prefix + "/bin/rotationd", withDestinationPath: PackagePaths.binary("rotationd"))
        let make = try ChildProcess("/usr/bin/make", ["-s", "-C", PackagePaths.root.path, "install-data", "PREFIX=\(prefix)"], in: dir, tag: "make")
        #expect(make.wait(timeout: Tolerance.longRun) == 0, "\(make.stderr)")
        let units = prefix + "/lib/systemd/system"
        let service = try String(contentsOfFile: units + "/rotationd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix)/bin/rotationd --serve"))
        #expect(service.contains("Type=notify") && service.contains("ProtectSystem=strict") && service.contains("RestrictAddressFamilies=AF_UNIX AF_NETLINK"))
        let socketUnit = try String(contentsOfFile: units + "/rotationd.socket", encoding: .utf8)
        #expect(socketUnit.contains("ListenStream=/run/rotationd/rotationd.sock") && !socketUnit.contains("RuntimeDirectory"))
        let rules = try String(contentsOfFile: prefix + "/lib/udev/rules.d/60-rotationd.rules", encoding: .utf8)
        #expect(rules.contains("TAG+=\"systemd\"") && rules.contains("ENV{SYSTEMD_WANTS}+=\"rotationd.service\""))
        #expect(rules.contains("RUN+=\"\(prefix)/lib/udev/rotationd-access %S%p\""), "the rule names the installed program: \(rules)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/lib/udev/rotationd-access"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/lib/sysusers.d/rotationd.conf"))
        let verify = try ChildProcess("/usr/bin/systemd-analyze", ["verify", units + "/rotationd.socket", units + "/rotationd.service"], in: dir, tag: "verify")
        #expect(verify.wait(timeout: Tolerance.build) == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "no warnings: \(verify.stderr)")
    }

    @Test("make install DESTDIR=… PREFIX=/usr installs the built binaries, the units and the rule, and never runs apt")
    func packagingInstall() throws {
        let dir = try ScratchDirectory()
        let dest = dir.path("dest")
        let args = ["-s", "-C", PackagePaths.root.path, "install", "DESTDIR=\(dest)", "PREFIX=/usr", "BUILD_DIR=\(PackagePaths.binDir.path)"]
        let plan = try ChildProcess("/usr/bin/make", ["-n"] + args, in: dir, tag: "plan")
        #expect(plan.wait(timeout: Tolerance.longRun) == 0, "\(plan.stderr)")
        #expect(!plan.stdout.contains("install-deps") && !plan.stdout.contains("apt-get"), "install does not install build dependencies: \(plan.stdout)")
        // SWIFT=false: binaries that are there are installed as they are, without any build.
        let make = try ChildProcess("/usr/bin/make", args + ["SWIFT=false"], in: dir, tag: "make")
        #expect(make.wait(timeout: Tolerance.build) == 0, "\(make.stderr)")
        for name in ["rotationd", "rotwatch"] {
            #expect(FileManager.default.isExecutableFile(atPath: dest + "/usr/bin/" + name), "\(name) installed")
        }
        let service = try String(contentsOfFile: dest + "/usr/lib/systemd/system/rotationd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/rotationd --serve"), "ExecStart names the final path, not DESTDIR")
        #expect(FileManager.default.fileExists(atPath: dest + "/usr/lib/systemd/system/rotationd.socket"))
        #expect(FileManager.default.fileExists(atPath: dest + "/usr/lib/udev/rules.d/60-rotationd.rules"))
        let help = try ChildProcess(dest + "/usr/bin/rotwatch", ["--help"], in: dir, tag: "help")
        #expect(help.wait(timeout: Tolerance.slowReply) == 0 && help.stdout.contains("--once"), "the installed rotwatch runs")

        let missing = try ChildProcess("/usr/bin/make", ["-s", "-C", PackagePaths.root.path, "install", "DESTDIR=\(dest)",
                                                         "PREFIX=/usr", "BUILD_DIR=\(dir.path("empty"))"], in: dir, tag: "missing")
        #expect(missing.wait(timeout: Tolerance.longRun) != 0 && missing.stderr.contains("build them first"), "\(missing.stderr)")
    }

    /// Runs a Python client as uid/gid 65534 (with `groups` as supplementary groups) that asks for samples and
    /// prints the greeting and the answer (changes published before the answer are passed over).
    static func askForSamples(socket: String, groups: String?, in dir: ScratchDirectory, tag: String) throws -> String {
        let code = """
        import json, socket
        s = socket.socket(socket.AF_UNIX); s.connect(\"\(socket)\"); f = s.makefile("rwb")
        print(f.readline().decode().strip()); f.readline()
        s.sendall(b'{"cmd":"subscribe","events":["state","samples"]}\\n')
        line = f.readline().decode().strip()
        while line and json.loads(line).get("type") == "state":
            line = f.readline().decode().strip()
        print(line)
        """
        var args = ["--reuid=65534", "--regid=65534"]
        args += groups.map { ["--groups=\($0)"] } ?? ["--clear-groups"]
        let c = try ChildProcess("/usr/bin/setpriv", args + ["/usr/bin/python3", "-c", code], in: dir, tag: tag)
        _ = c.wait(timeout: Tolerance.slowReply)
        return c.stdout + c.stderr
    }

    @Test("raw samples only for root or members of --samples-group, judged by the peer's credentials",
          .enabled(if: geteuid() == 0, "running clients as another user needs root"))
    func samplesNeedPrivilege() throws {
        let dir = try ScratchDirectory()
        chmod(dir.url.path, 0o755)
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 4, hold: 0.5)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--samples-group", "users"], in: dir)
        #expect(run.waitUntilServing())
        let outsider = try Self.askForSamples(socket: run.socket, groups: nil, in: dir, tag: "outsider")
        #expect(outsider.contains("\"samples\":false"), "\(outsider)")
        #expect(outsider.contains("\"code\":\"forbidden\""), "\(outsider)")
        let member = try Self.askForSamples(socket: run.socket, groups: "100", in: dir, tag: "member")
        #expect(member.contains("\"samples\":true"), "\(member)")
        #expect(member.contains("\"type\":\"subscribed\""), "\(member)")
        #expect(run.child.stop() == 0)

        let unknown = try ServiceRun(trace: trace, socket: dir.path("u.sock"), extra: ["--samples-group", "no-such-group-xyz"], in: dir, tag: "unknown")
        #expect(unknown.child.wait(timeout: Tolerance.slowReply) == 2)
        #expect(unknown.child.stderr.contains("no such group"))
    }
}
