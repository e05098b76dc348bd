import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The package under the real systemd: booted as PID 1 in a container (`BootedContainer`), checked through the
/// container's own systemctl and journalctl and with the packaged rotwatch as the client.
///
/// The emulated accelerometer stands where a kernel's would: umockdev's testbed (`umockdev-driver.py`, run
/// inside the container) provides the device's sysfs directory, which is mounted over the container's
/// /sys/devices/platform, its bus directory over /sys/bus, and its node (a pseudo-terminal the driver writes
/// scans into) at /dev/iio:device0; the driver then does what udev does with `60-rotationd.rules` (the node's
/// group and mode, `rotationd-access` on the device). The service sees them through its unit's sandbox as it
/// is shipped: nothing in the unit changes for the emulation. The drop-in `testDropIn` changes two things for
/// the test's sake only, each saying why.
@Suite("The package under systemd in a container", .serialized)
struct SystemdBootTests {
    /// Why the test cannot run here, or nil.
    static let skipReason = BootedContainer.unavailable()

    static let socket = "/run/rotationd/rotationd.sock"
    static let device = "/sys/devices/platform/accel-buffered/iio:device0"
    /// Files the driver and the test share inside the container.
    static let control = "/run/rotationd-test"
    static let watchdog = 3.0

    /// The test's changes to the packaged unit (/etc/systemd/system/rotationd.service.d/test.conf), and only these.
    static let testDropIn = """
        [Service]
        # 3 s instead of 30 s, so that the test sees the watchdog's pings keep the service alive over several
        # periods within seconds.
        WatchdogSec=3s
        # A system call the filter refuses ends the service with SIGSYS, which the journal records, instead of
        # failing with EPERM, which the service might pass over: every refusal shows.
        SystemCallErrorNumber=kill

        """

    /// Presets for the container's first boot: the package's socket is enabled, as its maintainer scripts do, and
    /// nothing else, so the boot is quick and the same whatever the machine has installed.
    static let presets = "enable rotationd.socket\ndisable *\n"

    @Test("rotationd.socket and rotationd.service under systemd 252 booted in a container: socket activation, READY=1, the status line, watchdog pings, the sandbox, an emulated accelerometer through /sys/devices, Restart=on-failure with clients reconnecting, a prompt stop with the socket kept, the journal's priorities",
          .disabled(if: skipReason != nil, Comment(rawValue: skipReason ?? "")))
    func bootedPackage() throws {
        let (_, package) = try DebianPackageTests.unpack()
        let scratch = try ScratchDirectory()
        let dropIns = scratch.path("rotationd.service.d")
        try FileManager.default.createDirectory(atPath: dropIns, withIntermediateDirectories: true)
        try Self.testDropIn.write(toFile: dropIns + "/test.conf", atomically: false, encoding: .utf8)
        let began = Date()
        let box = try BootedContainer(package: package.path,
                                      binds: [(dropIns, "/etc/systemd/system/rotationd.service.d"),
                                              (PackagePaths.source("Tests"), "/run/rotationd-tests")],
                                      presets: Self.presets)
        defer {
            #expect(box.shutDown(), "systemd-nspawn did not end")
            #expect(!FileManager.default.fileExists(atPath: "/run/systemd/nspawn/propagate/\(box.name)"), "nspawn left its directory behind")
            // The package's tree and the drop-in are mounted in the container: they go only after it.
            withExtendedLifetime((package, scratch)) {}
        }
        let booted = Date()
        let s = Steps(box: box, scratch: scratch)

        // At boot: the user from the package's sysusers.d file, the socket enabled by its [Install] section and
        // listening, the service not started.
        let account = try box.output(["getent", "passwd", "rotationd"]).trimmingCharacters(in: .newlines).split(separator: ":", omittingEmptySubsequences: false)
        #expect(account.count == 7 && account[6] == "/usr/sbin/nologin", "\(account)")
        let uid = account.count > 2 ? String(account[2]) : "?"
        #expect(try box.output(["systemctl", "is-enabled", "rotationd.socket"]) == "enabled\n")
        let socketUnit = try s.show("rotationd.socket", ["ActiveState", "SubState", "Listen"])
        #expect(socketUnit == ["ActiveState": "active", "SubState": "listening", "Listen": "\(Self.socket) (Stream)"], "\(socketUnit)\n\(box.consoleOutput)")
        #expect(try s.show("rotationd.service", ["ActiveState"])["ActiveState"] == "inactive")
        #expect(try s.show("rotationd.service", ["DropInPaths"])["DropInPaths"] == "/etc/systemd/system/rotationd.service.d/test.conf")

        // The first connection starts the service, with no sensor yet (a warning): a Type=notify service is
        // active only once it has sent READY=1.
        let once = try box.run(["rotwatch", "--once"])
        #expect(once.status == 0 && once.out.hasPrefix("rotationd "), "\(once)")
        let started = try s.waitFor("rotationd.service", ["ActiveState": "active", "SubState": "running"], timeout: Tolerance.slowReply)
        let first = try s.show("rotationd.service", ["Type", "StatusText", "WatchdogUSec"])
        #expect(started && first["Type"] == "notify", "\(first)")
        #expect(first["StatusText"] == "Serving on \(Self.socket)", "the status line: \(first)")
        #expect(first["WatchdogUSec"] == "3s", "the test's drop-in: \(first)")
        // Stopped, so that the next start sets its sandbox up with the emulated device in place: mounts made
        // while a service runs reach its namespace as they are, past its read-only remounting.
        #expect(try box.run(["systemctl", "stop", "rotationd.service"]).status == 0)

        // The emulated accelerometer, held upright, then turned right edge up once the test says so.
        try box.output(["mkdir", "-p", Self.control])
        try box.output(["sh", "-c", "echo 0 > \(Self.control)/turn && echo 0 > \(Self.control)/release"])
        let grants = try ServiceUserTests.RuleGrants(rules: String(contentsOfFile: package.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        let steps: [Step] = [
            // The testbed's sysfs where the kernel's would be (the machine has no IIO bus), and its node, a
            // pseudo-terminal, at the node's place.
            .exec(["mount", "--bind", "{root}/sys/bus", "/sys/bus"]),
            .exec(["mount", "--bind", "{root}/sys/devices/platform", "/sys/devices/platform"]),
            .exec(["cp", "--no-dereference", "{root}/dev/iio:device0", "/dev/iio:device0"]),
            // A value the service does not choose, to see its own write land.
            .set("iio:device0", ["sampling_frequency": 200]),
            // What udev does with the packaged rule: the node's group and mode, and rotationd-access on the device.
            .chown("dev/iio:device0", "root:" + grants.group), .chmod("dev/iio:device0", grants.mode),
            .exec(grants.iioRun.map { $0 == "%S%p" ? Self.device : $0 }),
            .feed("/dev/iio:device0", format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .exec(["touch", Self.control + "/ready"]),
            .waitFile(Self.control + "/turn", "1", within: Tolerance.testSignal),
            .feed("/dev/iio:device0", format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .waitFile(Self.control + "/release", "1", within: Tolerance.testSignal),
        ]
        // The package's Tests directory is at /run/rotationd-tests in the container.
        let driverInBox = "/run/rotationd-tests/" + Testbed.driverPath.dropFirst("Tests/".count)
        let driver = try box.start(["/usr/bin/python3", driverInBox, "--device", "buffered.umockdev",
                                    "--actions", Testbed.actions(steps),
                                    "--", "/bin/true"],
                                   in: scratch, tag: "driver", timeout: Tolerance.containerDriver)
        try #require(s.waitUntil(timeout: Tolerance.containerCommand) { try box.run(["test", "-e", Self.control + "/ready"]).status == 0 || !driver.isRunning },
                     "the emulated device was never set up")
        try #require(driver.isRunning, "the driver ended: \(s.text("driver.err"))")

        // A client that follows the service, reconnecting when it goes away; it starts the service again.
        let watch = try box.start(["rotwatch", "--json"], in: scratch, tag: "rotwatch")
        #expect(s.waitUntil(timeout: Tolerance.toolRun) { s.states().contains { $0["rotation"] as? Int == 0 } }, "no rotation 0: \(s.text("rotwatch.out"))")
        #expect(s.messages().first?["sensor"] as? String == "iio:device0 (accel_3d)", "\(s.text("rotwatch.out"))")
        let running = try s.show("rotationd.service", ["ActiveState", "MainPID", "ExecMainStartTimestampMonotonic", "User"])
        #expect(running["ActiveState"] == "active" && running["User"] == "rotationd", "\(running)")
        let pid = running["MainPID"] ?? "0"

        // The sandbox in force on the running process.
        let status = try box.output(["cat", "/proc/\(pid)/status"])
        var fields: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        #expect(fields["Uid"]?.split(separator: "\t").map(String.init) == [uid, uid, uid, uid], "\(fields)")
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(fields[set] == "0000000000000000", "\(set): \(fields[set] ?? "missing")")
        }
        #expect(fields["NoNewPrivs"] == "1" && fields["Seccomp"] == "2", "NoNewPrivs \(fields["NoNewPrivs"] ?? "?"), Seccomp \(fields["Seccomp"] ?? "?")")

        // What the service wrote reached the device's files under /sys/devices, as user rotationd through the
        // rule's grants.
        let written = try box.output(["sh", "-c", "cd \(Self.device) && for f in buffer/enable scan_elements/in_accel_x_en scan_elements/in_accel_y_en scan_elements/in_accel_z_en scan_elements/in_timestamp_en trigger/current_trigger sampling_frequency; do printf '%s=%s %s\\n' $f \"$(tr -d '\\000\\n' < $f)\" \"$(stat -c %G:%a $f)\"; done"])
        var values: [String: String] = [:]
        for line in written.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        let owner = "rotationd:664"
        for file in ["buffer/enable", "scan_elements/in_accel_x_en", "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en", "scan_elements/in_timestamp_en"] {
            #expect(values[file] == "1 \(owner)", "\(file): \(written)")
        }
        #expect(values["trigger/current_trigger"] == "accel_3d-dev0 \(owner)", "\(written)")
        let frequency = values["sampling_frequency"]?.split(separator: " ").first.map(String.init) ?? ""
        #expect(["10", "25", "50", "100"].contains(frequency) && values["sampling_frequency"]?.hasSuffix(owner) == true,
                "the sampling frequency the service chose: \(written)")

        // Turned: the client sees the new rotation.
        try box.output(["sh", "-c", "echo 1 > \(Self.control)/turn"])
        #expect(s.waitUntil(timeout: Tolerance.slowReply) { s.states().contains { $0["rotation"] as? Int == 270 } }, "no rotation 270: \(s.text("rotwatch.out"))")

        // The watchdog: pings at half of WatchdogSec= keep the service alive well past it.
        let start = (Double(running["ExecMainStartTimestampMonotonic"] ?? "") ?? 0) / 1e6
        func lastPing() throws -> Double {
            (Double(try s.show("rotationd.service", ["WatchdogTimestampMonotonic"])["WatchdogTimestampMonotonic"] ?? "") ?? 0) / 1e6
        }
        let ping = try lastPing()
        #expect(try s.waitUntil(timeout: Tolerance.closeSeen * Self.watchdog) { try lastPing() > ping }, "no WATCHDOG=1 within \(2 * Self.watchdog) s")
        let alive = 2.5 * Self.watchdog - (Self.monotonic() - start)
        // A time, not a wait: the service must outlive 2.5 watchdog periods with no restart.
        if alive > 0 { usleep(useconds_t(alive * 1e6)) }
        let later = try s.show("rotationd.service", ["MainPID", "NRestarts", "ActiveState"])
        #expect(later == ["MainPID": pid, "NRestarts": "0", "ActiveState": "active"], "\(later)")
        #expect(Self.monotonic() - start > 2 * Self.watchdog)

        // A crash: systemd restarts the service, and the client reconnects and gets the rotation again.
        try box.output(["kill", "-SEGV", pid])
        #expect(try s.waitFor("rotationd.service", ["NRestarts": "1", "ActiveState": "active", "SubState": "running"], timeout: Tolerance.toolRun))
        let restarted = try s.show("rotationd.service", ["MainPID"])["MainPID"]
        #expect(restarted != pid && restarted != "0")
        #expect(s.waitUntil(timeout: Tolerance.toolRun) {
            let lines = s.messages()
            guard let second = lines.indices.filter({ lines[$0]["type"] as? String == "hello" }).dropFirst().first else { return false }
            return lines[second...].contains { $0["rotation"] as? Int == 270 }
        }, "after the restart: \(s.text("rotwatch.out"))\(s.text("rotwatch.err"))")
        #expect(s.text("rotwatch.err").contains("the service closed the connection"), "\(s.text("rotwatch.err"))")

        // A prompt stop; systemd keeps the socket listening.
        kill(-watch.process.processIdentifier, SIGTERM)
        watch.wait(timeout: nil)
        let stopping = Date()
        let stop = try box.run(["systemctl", "stop", "rotationd.service"])
        let stopTime = Date().timeIntervalSince(stopping)
        #expect(stop.status == 0 && stopTime < Tolerance.serviceStop, "systemctl stop took \(stopTime) s: \(stop.err)")
        let after = try s.show("rotationd.service", ["ActiveState", "Result"])
        #expect(after == ["ActiveState": "inactive", "Result": "success"], "\(after)")
        #expect(try s.show("rotationd.socket", ["SubState"])["SubState"] == "listening")
        #expect(try box.run(["test", "-S", Self.socket]).status == 0, "the socket file is gone")
        #expect(try box.output(["cat", Self.device + "/buffer/enable"]).hasPrefix("0"), "the buffer was left enabled")

        // The driver's own checks: every step passed.
        try box.output(["sh", "-c", "echo 1 > \(Self.control)/release"])
        if let status = driver.wait(timeout: Tolerance.slowReply) {
            #expect(status == 0, "the driver: \(s.text("driver.err"))")
        } else {
            Issue.record("the driver did not end: \(s.text("driver.err"))")
        }

        // The journal: each line of the service at its level, no refused system call, the crash and the restart.
        let journal = try s.journal()
        let service = journal.filter { $0["SYSLOG_IDENTIFIER"] == "rotationd" }
        for (word, priority) in [("info", "6"), ("warning", "4")] {
            let lines = service.filter { $0["MESSAGE"]?.hasPrefix("rotationd: \(word): ") == true }
            #expect(!lines.isEmpty && lines.allSatisfy { $0["PRIORITY"] == priority }, "\(word) lines: \(lines)")
        }
        #expect(service.contains { $0["MESSAGE"]?.hasPrefix("rotationd: warning: no accelerometer found") == true })
        #expect(!service.contains { $0["MESSAGE"]?.hasPrefix("<") == true || $0["MESSAGE"]?.hasPrefix("rotationd: error: ") == true },
                "\(service.map { $0["MESSAGE"] ?? "" })")
        let messages = journal.map { $0["MESSAGE"] ?? "" }
        let refusals = journal.filter { entry in
            let m = entry["MESSAGE"] ?? ""
            return entry["_TRANSPORT"] == "audit" || m.contains("status=31/SYS") || m.localizedCaseInsensitiveContains("seccomp")
        }
        #expect(refusals.isEmpty, "a system call refused: \(refusals)")
        #expect(messages.contains("rotationd.service: Main process exited, code=killed, status=11/SEGV")
                || messages.contains("rotationd.service: Main process exited, code=dumped, status=11/SEGV"), "\(messages)")
        #expect(messages.contains("rotationd.service: Scheduled restart job, restart counter is at 1."))
        #expect(!messages.contains { $0.contains("Watchdog timeout") })
        #expect(journal.contains { $0["SYSLOG_IDENTIFIER"] == "systemd-sysusers" && $0["MESSAGE"]?.contains("Creating user 'rotationd'") == true })
        print("SystemdBootTests: booted in \(String(format: "%.1f", booted.timeIntervalSince(began))) s, checked in \(String(format: "%.1f", Date().timeIntervalSince(booted))) s; systemctl stop took \(String(format: "%.2f", stopTime)) s")
    }

    /// CLOCK_MONOTONIC in seconds: the clock of systemd's *Monotonic timestamps, inside the container too.
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// What the test asks of the container, and the files of its clients.
    struct Steps {
        let box: BootedContainer
        let scratch: ScratchDirectory

        /// Properties of `unit`, as `systemctl show` gives them.
        func show(_ unit: String, _ properties: [String]) throws -> [String: String] {
            let out = try box.output(["systemctl", "show", unit] + properties.flatMap { ["-p", $0] })
            var values: [String: String] = [:]
            for line in out.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
            }
            return values
        }

        /// Waits until `unit` has every property in `wanted`; false after `timeout` seconds.
        func waitFor(_ unit: String, _ wanted: [String: String], timeout: Double) throws -> Bool {
            try waitUntil(timeout: timeout) {
                let now = try show(unit, Array(wanted.keys))
                return wanted.allSatisfy { now[$0.key] == $0.value }
            }
        }

        /// Checks `condition` every 0.1 s (each look may run a command inside) until it holds; false after
        /// `timeout` seconds.
        func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
            try Poll.until(timeout: timeout, every: 0.1, condition)
        }

        /// A file of the scratch directory (a client's output).
        func text(_ name: String) -> String { (try? String(contentsOfFile: scratch.path(name), encoding: .utf8)) ?? "" }

        /// Every line rotwatch --json printed, decoded.
        func messages() -> [[String: Any]] {
            text("rotwatch.out").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }

        /// The state lines among them.
        func states() -> [[String: Any]] { messages().filter { $0["type"] as? String == "state" } }

        /// The container's journal since boot, each entry's fields as text.
        func journal() throws -> [[String: String]] {
            let out = try box.output(["journalctl", "--boot", "--output=json", "--no-pager"], timeout: Tolerance.longRun)
            return out.split(separator: "\n").compactMap { line in
                guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
                return object.compactMapValues { $0 as? String }
            }
        }
    }
}
