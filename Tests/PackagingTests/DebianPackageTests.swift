import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The package `make deb` leaves in dist/, unpacked into scratch directories.
@Suite("Debian package")
struct DebianPackageTests {
    /// The package unpacked with `dpkg-deb -x` into a scratch directory.
    static func unpack() throws -> (deb: String, root: ScratchDirectory) {
        let deb = try PackagePaths.requireDebianPackage()
        let root = try ScratchDirectory()
        _ = try ChildProcess.run("dpkg-deb", ["-x", deb, root.path]).output()
        return (deb, root)
    }

    @Test("make deb names the package rotationd_VERSION_ARCH.deb with the version both commands print")
    func versionIsTheCommands() throws {
        let (deb, root) = try Self.unpack()
        let version = try PackagePaths.version()
        #expect(try ChildProcess.run("dpkg-deb", ["-f", deb, "Version"]).output() == version + "\n")
        #expect(try ChildProcess.run("dpkg-deb", ["-f", deb, "Package"]).output() == "rotationd\n")
        #expect(try ChildProcess.run(root.path("usr/bin/rotationd"), ["--version"]).output() == "rotationd \(version)\n")
        #expect(try ChildProcess.run(root.path("usr/bin/rotwatch"), ["--version"]).output() == "rotwatch \(version)\n")
    }

    @Test("The package holds the binaries, the udev rule and its program, both units, the sysusers.d file, both man pages, the completions, the documents and the copyright")
    func contents() throws {
        let (deb, _) = try Self.unpack()
        let listing = try ChildProcess.run("dpkg-deb", ["-c", deb]).output()
        let paths = Set(listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map { String($0.dropFirst()) } })
        for path in ["/usr/bin/rotationd", "/usr/bin/rotwatch", "/usr/lib/udev/rules.d/60-rotationd.rules",
                     "/usr/lib/udev/rotationd-access", "/usr/lib/sysusers.d/rotationd.conf", "/usr/share/doc/rotationd/copyright",
                     "/usr/lib/systemd/system/rotationd.service", "/usr/lib/systemd/system/rotationd.socket",
                     "/usr/share/man/man8/rotationd.8.gz", "/usr/share/man/man1/rotwatch.1.gz",
                     "/usr/share/bash-completion/completions/rotationd", "/usr/share/bash-completion/completions/rotwatch",
                     "/usr/share/doc/rotationd/protocol.md", "/usr/share/doc/rotationd/README.md", "/usr/share/doc/rotationd/qt.md",
                     "/usr/share/doc/rotationd/examples/subscribe.py", "/usr/share/rotationd/tablet-mode-switch.conf"] {
            #expect(paths.contains(path), "\(path) is not in the package")
        }
        #expect(!paths.contains { $0.hasPrefix("/usr/local") || $0.hasPrefix("/lib/") || $0.hasPrefix("/etc/") },
                "unexpected paths: \(paths.filter { $0.hasPrefix("/usr/local") || $0.hasPrefix("/lib/") || $0.hasPrefix("/etc/") })")
        let depends = try ChildProcess.run("dpkg-deb", ["-f", deb, "Depends"]).output()
        #expect(depends.contains("libiio0") && depends.contains("libudev1"), "Depends: \(depends)")
        #expect(depends.contains("acl") && depends.contains("systemd"), "setfacl for the udev rule, systemd-sysusers for the user: \(depends)")
    }

    @Test("The packaged service unit starts /usr/bin/rotationd and every file is owned by root")
    func unitAndOwnership() throws {
        let (deb, root) = try Self.unpack()
        let unit = try String(contentsOfFile: root.path("usr/lib/systemd/system/rotationd.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/rotationd --serve"))
        #expect(unit.contains("Requires=rotationd.socket"), "stopping the socket must stop the service too")
        let owners = try ChildProcess.run("dpkg-deb", ["-c", deb]).output().split(separator: "\n").map { $0.split(separator: " ")[1] }
        #expect(owners.allSatisfy { $0 == "root/root" })
    }

    @Test("The package's postinst, at configure with udev running, reloads the rules and re-triggers the IIO and video4linux devices and, of the input devices, only the switches; with DPKG_ROOT set it calls no udevadm",
          .enabled(if: geteuid() == 0, "needs root to mount a private /run"))
    func postinstTriggersOnlyWhatTheRuleGrants() throws {
        let scratch = try ScratchDirectory()
        let log = scratch.path("udevadm.log")
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$*\" >> \(log)\n".write(toFile: bin + "/udevadm", atomically: true, encoding: .utf8)
        _ = chmod(bin + "/udevadm", 0o755)
        let postinst = PackagePaths.source("debian/rotationd.postinst")
        // A private /run holding udev's control socket, so that the script sees a running udev and calls the stand-in.
        func configure(_ environment: String) throws {
            let script = """
                mount -t tmpfs rotationd-run /run && mkdir -p /run/udev && \
                /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/run/udev/control")' && \
                env \(environment) PATH=\(bin):$PATH sh \(postinst) configure
                """
            _ = try ChildProcess.run("unshare", ["-m", "sh", "-c", script]).output()
        }
        try configure("-u DPKG_ROOT")
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(calls == ["control --reload-rules",
                          "trigger --action=change --subsystem-match=iio --subsystem-match=video4linux",
                          "trigger --action=change --subsystem-match=input --property-match=ID_INPUT_SWITCH=1"], "\(calls)")
        try FileManager.default.removeItem(atPath: log)
        try configure("DPKG_ROOT=\(scratch.path("image"))")
        #expect(!FileManager.default.fileExists(atPath: log), "udevadm was called for an image being built")
    }

    @Test("The packaged tablet-mode switch drop-in runs /usr/bin/rotationd --serve --tablet-mode-switch and allows /dev/uinput write-only, through the device cgroup and an ACL for the group given at start and taken back at stop, each step allowed to fail so that the rotation service still starts")
    func tabletModeSwitchDropIn() throws {
        let (_, root) = try Self.unpack()
        let text = try String(contentsOfFile: root.path("usr/share/rotationd/tablet-mode-switch.conf"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(lines == [
            "[Service]",
            "ExecStartPre=-+/sbin/modprobe -q uinput",
            "ExecStartPre=-+/usr/bin/setfacl -m g:rotationd:w /dev/uinput",
            "ExecStopPost=-+/usr/bin/setfacl -x g:rotationd /dev/uinput",
            "ExecStart=",
            "ExecStart=/usr/bin/rotationd --serve --tablet-mode-switch",
            "DeviceAllow=/dev/uinput w",
        ], "\(lines)")
        #expect(text.contains("install -D -m 0644 /usr/share/rotationd/tablet-mode-switch.conf /etc/systemd/system/rotationd.service.d/tablet-mode-switch.conf"),
                "the file names where it is installed, with the package's own paths")
        // The unit itself allows no misc device: without the drop-in the service cannot open /dev/uinput at all.
        let unit = try String(contentsOfFile: root.path("usr/lib/systemd/system/rotationd.service"), encoding: .utf8)
        #expect(unit.contains("DevicePolicy=closed") && !unit.contains("uinput") && !unit.contains("char-misc"), "\(unit)")
    }

    @Test("The packaged rotwatch, and the static release build it is stripped from, are at most 12 MB")
    func rotwatchIsSmall() throws {
        let (_, root) = try Self.unpack()
        for path in [root.path("usr/bin/rotwatch"), PackagePaths.release("rotwatch")] {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? .max
            #expect(size <= 12_000_000, "\(path) is \(size) bytes")
        }
    }

    @Test("The packaged man pages render with man --warnings and draw no warning", arguments: ["man8/rotationd.8.gz", "man1/rotwatch.1.gz"])
    func packagedManPages(page: String) throws {
        let (_, root) = try Self.unpack()
        let rendered = try ManPage.render(root.path("usr/share/man/" + page))
        #expect(rendered.warnings.isEmpty, "\(page): \(rendered.warnings)")
        #expect(rendered.text.contains("OPTIONS"))
    }

    @Test("The packaged bash completions are the ones in completions/", arguments: ["rotationd", "rotwatch"])
    func packagedCompletions(command: String) throws {
        let (_, root) = try Self.unpack()
        let packaged = try Data(contentsOf: URL(fileURLWithPath: root.path("usr/share/bash-completion/completions/" + command)))
        #expect(packaged == (try Data(contentsOf: URL(fileURLWithPath: PackagePaths.source("completions/" + command)))))
    }

    @Test("systemd-analyze verify --root accepts both units in the unpacked package")
    func unitsVerify() throws {
        let (_, root) = try Self.unpack()
        // A system that runs the units has systemd's own targets beside them (sockets.target, sysinit.target...).
        let targets = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/systemd/system").filter { $0.hasSuffix(".target") }
        #expect(targets.contains("sockets.target"))
        for t in targets {
            try? FileManager.default.copyItem(atPath: "/usr/lib/systemd/system/" + t, toPath: root.path("usr/lib/systemd/system/" + t))
        }
        let r = try ChildProcess.run("systemd-analyze", ["verify", "--root=\(root.path)", "rotationd.socket", "rotationd.service"],
                                     timeout: Tolerance.build)
        #expect(r.status == 0 && r.out.isEmpty && r.err.isEmpty, "\(r)")
    }

    @Test("The packaged rotationd serves a trace and the packaged rotwatch reads it")
    func packagedBinariesRun() throws {
        let (_, root) = try Self.unpack()
        let socket = root.path("rotationd.sock")
        let service = try ChildProcess(root.path("usr/bin/rotationd"),
                                       ["--replay", PackagePaths.source("data/demo-50hz.csv"), "--socket", socket, "--speed", "8"],
                                       in: root, tag: "rotationd")
        // The socket file appears at bind(), before the service listens; it says when it serves.
        _ = service.waitUntil(timeout: Tolerance.slowReply) { service.stderr.contains("serving on") || !service.isRunning }
        #expect(service.stderr.contains("serving on \(socket)"), "\(service.stderr)")
        let watch = try ChildProcess.run(root.path("usr/bin/rotwatch"), ["--once", "--socket", socket])
        #expect(watch.status == 0, "rotwatch --once: \(watch.err)")
        let lines = watch.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("rotationd \(try PackagePaths.version()) on \(socket)") == true, "\(watch.out)")
        #expect(lines.first?.contains("replay:") == true)
        #expect(service.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "rotationd leaves its socket file behind")
    }
}
