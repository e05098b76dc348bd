import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The package installed, removed and purged with dpkg in a scratch root, never on the machine itself.
///
/// dpkg runs the maintainer scripts outside a chroot (`--force-script-chrootless`), so they act on the root
/// named by `DPKG_ROOT`, with the machine's deb-systemd-helper and deb-systemd-invoke. To let them act as
/// on a booted system they run in a private mount namespace whose /run holds an empty `systemd/system`, and
/// the scratch root's policy-rc.d, which deb-systemd-invoke asks before any start or stop, writes the
/// request to a log and refuses it.
@Suite("Installing into a scratch root")
struct ScratchInstallTests {
    /// A scratch root laid out as a Debian system with systemd has it before the package arrives: an empty
    /// dpkg database, the directories systemd and init-system-helpers own, and the account files (copies of
    /// the machine's, with the backups and lock file the account tools leave beside them).
    final class ScratchRoot {
        let dir: ScratchDirectory
        var path: String { dir.path }
        var policyLog: String { dir.path("policy-rc.log") }

        init() throws {
            dir = try ScratchDirectory()
            let fm = FileManager.default
            for d in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "etc/systemd/system",
                      "var/lib/systemd", "usr/sbin"] {
                try fm.createDirectory(atPath: dir.path(d), withIntermediateDirectories: true)
            }
            for f in ["var/lib/dpkg/status", "var/lib/dpkg/available", "etc/.pwd.lock"] { _ = fm.createFile(atPath: dir.path(f), contents: Data()) }
            for f in ["passwd", "group", "shadow", "gshadow"] {
                try fm.copyItem(atPath: "/etc/" + f, toPath: dir.path("etc/" + f))
                try fm.copyItem(atPath: "/etc/" + f, toPath: dir.path("etc/" + f + "-"))
            }
            let policy = "#!/bin/sh\necho \"$*\" >> '\(policyLog)'\nexit 101\n"
            _ = fm.createFile(atPath: dir.path("usr/sbin/policy-rc.d"), contents: Data(policy.utf8), attributes: [.posixPermissions: 0o755])
        }

        /// Runs dpkg on this root with `arguments`, as described on the suite; its log stays in the root too.
        func dpkg(_ arguments: [String]) throws -> ChildProcess.Ended {
            let script = "mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec dpkg \"$@\""
            return try ChildProcess.run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh",
                                                    "--root=\(path)", "--log=\(path)/var/lib/dpkg/dpkg.log",
                                                    "--force-script-chrootless"] + arguments, timeout: Tolerance.build)
        }

        /// Every path under the root, relative to it, except the dpkg database and the policy log.
        func tree() throws -> Set<String> {
            let all = try FileManager.default.subpathsOfDirectory(atPath: path)
            return Set(all.filter { !$0.hasPrefix("var/lib/dpkg") && $0 != "policy-rc.log" })
        }

        /// What policy-rc.d was asked since the last call, one "UNIT ACTION" per element.
        func takeRequests() -> [String] {
            let text = (try? String(contentsOfFile: policyLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: policyLog)
            return text.split(separator: "\n").map(String.init)
        }

        func isSymlink(_ relative: String) -> String? {
            try? FileManager.default.destinationOfSymbolicLink(atPath: dir.path(relative))
        }
    }

    @Test("Installing creates the rotationd user, enables and starts rotationd.socket; removing takes the units away; purging leaves nothing behind but the user")
    func installRemovePurge() throws {
        #expect(getuid() == 0, "installing into a scratch root needs root (CI runs as root)")
        let deb = try PackagePaths.requireDebianPackage()
        let root = try ScratchRoot()
        let before = try root.tree()

        // The libraries it links are on the machine, not in the scratch root's database.
        let install = try root.dpkg(["--force-depends", "-i", deb])
        #expect(install.status == 0, "dpkg -i: \(install.out)\(install.err)")
        #expect(root.isSymlink("etc/systemd/system/sockets.target.wants/rotationd.socket") == "/usr/lib/systemd/system/rotationd.socket")
        #expect(root.takeRequests() == ["rotationd.socket start"])
        let enabled = try ChildProcess.run("systemctl", ["--root=\(root.path)", "is-enabled", "rotationd.socket"])
        #expect(enabled.out == "enabled\n", "systemctl is-enabled: \(enabled.out)\(enabled.err)")
        for path in ["usr/bin/rotationd", "usr/lib/systemd/system/rotationd.service", "usr/lib/udev/rules.d/60-rotationd.rules",
                     "usr/lib/udev/rotationd-access", "usr/lib/sysusers.d/rotationd.conf"] {
            #expect(FileManager.default.fileExists(atPath: root.dir.path(path)))
        }
        func user() -> String? {
            let passwd = (try? String(contentsOfFile: root.dir.path("etc/passwd"), encoding: .utf8)) ?? ""
            return passwd.split(separator: "\n").first { $0.hasPrefix("rotationd:") }.map(String.init)
        }
        #expect(user()?.hasSuffix(":/:/usr/sbin/nologin") == true, "the rotationd user: \(user() ?? "missing")")

        let remove = try root.dpkg(["-r", "rotationd"])
        #expect(remove.status == 0, "dpkg -r: \(remove.out)\(remove.err)")
        for path in ["usr/bin/rotationd", "usr/bin/rotwatch", "usr/lib/systemd/system/rotationd.socket",
                     "usr/lib/systemd/system/rotationd.service", "usr/lib/udev/rules.d/60-rotationd.rules",
                     "usr/lib/udev/rotationd-access", "usr/lib/sysusers.d/rotationd.conf"] {
            #expect(!FileManager.default.fileExists(atPath: root.dir.path(path)), "\(path) is still there after dpkg -r")
        }
        let afterRemove = try ChildProcess.run("systemctl", ["--root=\(root.path)", "is-enabled", "rotationd.socket"])
        #expect(afterRemove.status != 0 && !afterRemove.out.contains("enabled"), "is-enabled after dpkg -r: \(afterRemove.out)")

        let purge = try root.dpkg(["-P", "rotationd"])
        #expect(purge.status == 0, "dpkg -P: \(purge.out)\(purge.err)")
        let left = try root.tree().subtracting(before)
        #expect(left.isEmpty, "left behind after purge: \(left.sorted())")
        // As with every Debian package, the system user stays: files it owned may outlive the package.
        #expect(user() != nil)
        let query = try ChildProcess.run("dpkg-query", ["--admindir=\(root.path)/var/lib/dpkg", "-W", "-f=${db:Status-Abbrev}", "rotationd"])
        #expect(query.status == 1 && query.err.contains("no packages found"), "dpkg-query after purge: \(query.out)\(query.err)")
    }

    @Test("On removal the package stops rotationd.socket, which stops the service that requires it")
    func prermStopsTheSocket() throws {
        let (deb, _) = try DebianPackageTests.unpack()
        let control = try ScratchDirectory()
        _ = try ChildProcess.run("dpkg-deb", ["-e", deb, control.path]).output()
        // dpkg skips the stop outside a booted system (DPKG_ROOT set), so the script is read rather than run.
        let prerm = try String(contentsOfFile: control.path("prerm"), encoding: .utf8)
        #expect(prerm.contains("\"$1\" = remove"))
        #expect(prerm.contains("deb-systemd-invoke stop 'rotationd.socket'"))
        let postrm = try String(contentsOfFile: control.path("postrm"), encoding: .utf8)
        #expect(postrm.contains("deb-systemd-helper purge 'rotationd.socket'"))
    }
}
