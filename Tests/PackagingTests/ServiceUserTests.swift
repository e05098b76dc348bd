import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The packaged service without root: its own user, the udev rule's grants, and the unit's sandbox.
///
/// The device tests emulate sensors and cameras with umockdev, apply to them what the packaged udev rule says
/// (its GROUP and MODE on the node, its RUN program on the device's sysfs directory), and run the packaged
/// rotationd as the packaged user, as rotationd.service does.
@Suite("The service as its own user", .serialized, .enabled(if: geteuid() == 0, "creating the user and switching to it need root"))
struct ServiceUserTests {
    static let socketUnit = "usr/lib/systemd/system/rotationd.service"
    static let normal = "\"rotation\":0,"
    static let rightUp = "\"rotation\":270,"

    /// What the packaged rule gives the service's group: the IIO node's group and mode, and the RUN programs for
    /// IIO devices and camera sensor sub-devices.
    struct RuleGrants {
        var group: String
        var mode: String
        var iioRun: [String]
        var subdeviceRun: [String]

        init(rules: String) throws {
            func value(_ key: String, in line: Substring) -> String? {
                guard let r = line.range(of: key + "=\"") else { return nil }
                return line[r.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
            }
            let lines = rules.split(separator: "\n").filter { !$0.hasPrefix("#") }
            let iio = try #require(lines.first { $0.contains("GROUP=") }, "no GROUP= in the rules")
            group = try #require(value("GROUP", in: iio))
            mode = try #require(value("MODE", in: iio))
            iioRun = try #require(value("RUN+", in: iio)).split(separator: " ").map(String.init)
            let subdevice = try #require(lines.first { $0.contains("KERNEL==\"v4l-subdev*\"") && $0.contains("RUN+=") },
                                         "no RUN for v4l-subdev in the rules")
            subdeviceRun = try #require(value("RUN+", in: subdevice)).split(separator: " ").map(String.init)
        }

        /// The driver steps that do what udev would for the device at sysfs path `devpath` with node `node`
        /// (relative to /dev), its program taken from the unpacked `package`: `%S` is the testbed's /sys, `%p`
        /// the devpath and `$devnode` the testbed's node.
        func steps(devpath: String, node: String, subdevice: Bool, package: String) -> [Step] {
            let run = (subdevice ? subdeviceRun : iioRun).map { word -> String in
                if word.hasPrefix("/") { return package + word }
                return word.replacingOccurrences(of: "%S", with: "{root}/sys").replacingOccurrences(of: "%p", with: devpath)
                    .replacingOccurrences(of: "$devnode", with: "{root}/dev/" + node)
            }
            if subdevice { return [.exec(run)] }
            return [.chown("dev/" + node, "root:" + group), .chmod("dev/" + node, mode), .exec(run)]
        }
    }

    /// Runs the packaged rotationd with `arguments` as the packaged user in an umockdev testbed with `devices`,
    /// after `steps` (`Step`).
    /// What the driver printed, and its results (`Results`).
    struct DriverRun {
        var command: ChildProcess.Ended
        var results: Results
        var status: Int32? { command.status }
        var out: String { command.out }
        var err: String { command.err }
    }

    static func runAsServiceUser(_ user: ServiceUser, devices: [String], steps: [Step], arguments: [String]) throws -> DriverRun {
        let driver = PackagePaths.source(Testbed.driverPath)
        let results = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-user-results-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: results) }
        var args = ["/usr/bin/python3", driver]
        for d in devices { args += ["--device", d] }
        args += ["--user", "\(ServiceUser.name):\(ServiceUser.name)"]
        args += ["--results", results.path]
        args += ["--actions", Testbed.actions(steps)]
        args += ["--", user.package + "/usr/bin/rotationd"] + arguments
        let command = try user.run("/usr/bin/umockdev-wrapper", args, timeout: nil)
        return DriverRun(command: command, results: Results(data: (try? Data(contentsOf: results)) ?? Data()))
    }

    /// Checks that the process ran as `uid` with no capability in any set and no way to gain one.
    static func expectUnprivileged(_ r: DriverRun, uid: String) {
        let c = r.results.credentials.mapValues(\.value)
        #expect(r.results.credentials["Uid"]?.words == [uid, uid, uid, uid], "\(c)")
        #expect(uid != "0")
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(c[set] == "0000000000000000", "\(set): \(c[set] ?? "missing")")
        }
        #expect(c["NoNewPrivs"] == "1")
    }

    @Test("The package creates a system user rotationd with no login shell, and the unit runs the service as it")
    func packagedUser() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let entry = try user.passwdEntry()
        #expect(entry.count == 7, "\(entry)")
        let uid = Int(entry[2]) ?? 0
        #expect(uid > 0 && uid < 1000, "a system uid: \(entry)")
        #expect(entry[6] == "/usr/sbin/nologin", "\(entry)")
        let unit = try String(contentsOfFile: root.path(Self.socketUnit), encoding: .utf8)
        #expect(unit.contains("\nUser=rotationd\n") && unit.contains("\nGroup=rotationd\n"), "\(unit)")
        #expect(unit.contains("\nCapabilityBoundingSet=\n") && !unit.contains("AmbientCapabilities"), "\(unit)")
    }

    @Test("systemd-analyze security rates the packaged unit's exposure at most 1.5, with no root and no capability")
    func exposure() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let r = try ChildProcess.run("systemd-analyze", ["security", "--offline=true", "--no-pager", root.path(Self.socketUnit)])
        let overall = r.out.split(separator: "\n").first { $0.contains("Overall exposure level for rotationd.service") }
        let score = overall.flatMap { $0.split(separator: ":").last?.split(separator: " ").first }.flatMap { Double($0) }
        let exposure = try #require(score, "\(r)")
        #expect(exposure <= 1.5, "\(r.out)")
        let json = try ChildProcess.run("systemd-analyze", ["security", "--offline=true", "--json=short", root.path(Self.socketUnit)])
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]], "\(json.out)\(json.err)")
        #expect(checks.count > 50)
        // A check the unit passes is "set", with no exposure.
        for name in ["User=/DynamicUser=", "CapabilityBoundingSet=~CAP_SYS_ADMIN", "CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)",
                     "CapabilityBoundingSet=~CAP_SET(UID|GID|PCAP)", "AmbientCapabilities=", "NoNewPrivileges=",
                     "ProtectKernelTunables=", "ProtectProc=", "ProcSubset=", "SystemCallFilter=~@privileged",
                     "SystemCallFilter=~@resources", "PrivateMounts=", "IPAddressDeny="] {
            let check = checks.first { $0["name"] as? String == name }
            #expect(check?["set"] as? Bool == true, "\(name): \(check ?? [:])")
        }
    }

    @Test("rotationd-access gives the group write on exactly the attributes rotationd changes (its buffer, trigger, frequency and the accelerometer's event enables, thresholds and periods), and leaves every other file as it was")
    func accessToAttributes() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let device = user.scratch.path("sys/devices/platform/accel/iio:device3")
        let granted = ["buffer/enable", "buffer/length", "buffer/watermark", "buffer0/enable", "buffer0/length", "buffer0/watermark",
                       "scan_elements/in_accel_x_en", "scan_elements/in_anglvel_z_en", "scan_elements/in_timestamp_en",
                       "trigger/current_trigger", "sampling_frequency", "in_accel_sampling_frequency",
                       "in_accel_x_sampling_frequency", "in_anglvel_sampling_frequency",
                       "events/in_accel_x_roc_either_en", "events/in_accel_x_roc_either_value", "events/in_accel_x_roc_either_period",
                       "events/in_accel_x|y|z_roc_rising_en", "events/in_accel_mag_rising_value"]
        let kept = ["buffer/hwfifo_watermark_max", "buffer/data_available", "buffer0/in_accel_x_en", "scan_elements/in_accel_x_index",
                    "scan_elements/in_accel_x_type", "sampling_frequency_available", "in_accel_sampling_frequency_available",
                    "in_anglvel_sampling_frequency_available", "in_accel_x_raw", "in_accel_scale", "in_accel_offset",
                    "in_accel_mount_matrix", "name", "label", "uevent", "power/control", "current_timestamp_clock",
                    "events/in_accel_scale", "events/in_accel_mag_value_available", "events/in_steps_change_en",
                    "events/in_accel_gesture_tap_wait_dur", "events/in_accel_gesture_singletap_value",
                    "events/in_accel_mag_falling_value", "events/in_accel_x&y&z_mag_falling_en"]
        for file in granted + kept {
            let path = device + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("0\n".utf8), attributes: [.posixPermissions: 0o644]))
        }
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        #expect(grants.iioRun.count == 2 && grants.iioRun[1] == "%S%p", "\(grants.iioRun)")
        let r = try user.run(root.path + grants.iioRun[0], [device])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let gid = try user.passwdEntry()[3]
        for file in granted {
            let attributes = try FileManager.default.attributesOfItem(atPath: device + "/" + file)
            #expect("\(attributes[.groupOwnerAccountID] ?? "")" == gid && attributes[.posixPermissions] as? Int == 0o664,
                    "\(file): \(attributes[.groupOwnerAccountID] ?? "") \(String(attributes[.posixPermissions] as? Int ?? 0, radix: 8))")
        }
        for file in kept {
            let attributes = try FileManager.default.attributesOfItem(atPath: device + "/" + file)
            #expect("\(attributes[.groupOwnerAccountID] ?? "")" == "0" && attributes[.posixPermissions] as? Int == 0o644, "\(file) changed")
        }
    }

    @Test("rotationd-access gives the group read on a camera sensor sub-device through an ACL, keeping its owner, group and mode")
    func accessToSubdevice() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let node = user.scratch.path("v4l-subdev2")
        #expect(FileManager.default.createFile(atPath: node, contents: Data(), attributes: [.posixPermissions: 0o660]))
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        #expect(grants.subdeviceRun.dropFirst() == ["%S%p", "$devnode"], "\(grants.subdeviceRun)")
        let r = try user.run(root.path + grants.subdeviceRun[0], ["/sys/devices/platform/camera/video4linux/v4l-subdev2", node])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let acl = try user.run("/usr/bin/getfacl", ["--omit-header", "--numeric", node])
        let gid = try user.passwdEntry()[3]
        #expect(acl.out.split(separator: "\n").contains("group:\(gid):r--"), "\(acl.out)\(acl.err)")
        #expect(acl.out.split(separator: "\n").contains("user::rw-") && acl.out.split(separator: "\n").contains("group::rw-"), "\(acl.out)")
        #expect(acl.out.split(separator: "\n").contains("other::---"), "\(acl.out)")
        let attributes = try FileManager.default.attributesOfItem(atPath: node)
        #expect("\(attributes[.ownerAccountID] ?? "")" == "0" && "\(attributes[.groupOwnerAccountID] ?? "")" == "0")
    }

    @Test("rotationd-access gives the group read on a tablet-mode or lid switch's event node through an ACL, and nothing on an input device without either switch")
    func accessToSwitch() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let rules = try String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8)
        let line = try #require(rules.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("SUBSYSTEM==\"input\"") },
                                "no rule for input devices")
        let run = try #require(line.components(separatedBy: "RUN+=\"").last?.split(separator: "\"").first).split(separator: " ").map(String.init)
        #expect(run.dropFirst() == ["%S%p", "$devnode"], "\(run)")
        let gid = try user.passwdEntry()[3]
        // (device, capabilities/sw, whether the group may read its node): intel-vbtn, a lid, a headphone jack
        // (SW_HEADPHONE_INSERT, bit 2), a keyboard (no capabilities/sw at all).
        for (name, sw, granted) in [("vbtn", "2", true), ("lid", "1", true), ("jack", "4", false), ("keyboard", nil as String?, false)] {
            let device = user.scratch.path("input-\(name)")
            try FileManager.default.createDirectory(atPath: device + "/event3/", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: device + "/capabilities", withIntermediateDirectories: true)
            if let sw { try (sw + "\n").write(toFile: device + "/capabilities/sw", atomically: false, encoding: .utf8) }
            let node = user.scratch.path("event-\(name)")
            #expect(FileManager.default.createFile(atPath: node, contents: Data(), attributes: [.posixPermissions: 0o660]))
            let r = try user.run(root.path + run[0], [device + "/event3", node])
            #expect(r.status == 0, "\(name): \(r.out)\(r.err)")
            let acl = try user.run("/usr/bin/getfacl", ["--omit-header", "--numeric", node])
            #expect(acl.out.split(separator: "\n").contains("group:\(gid):r--") == granted, "\(name): \(acl.out)\(acl.err)")
            #expect(acl.out.split(separator: "\n").contains("group::rw-") && acl.out.split(separator: "\n").contains("other::---"), "\(name): \(acl.out)")
        }
    }

    @Test("The packaged rotationd, as the rotationd user with the rule's grants on an emulated buffered accelerometer, reads the buffer, with no capability")
    func capturesBuffered() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        let socket = "/tmp/rotationd-user-buffered-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let node = "/dev/iio:device0"
        let dev = "sys/bus/iio/devices/iio:device0/"
        let steps: [Step] = grants.steps(devpath: "/devices/platform/accel-buffered/iio:device0", node: "iio:device0", subdevice: false, package: root.path) + [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .connect(socket),
            .wait(.socket(Self.normal)),
            .credentials,
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .wait(.socket(Self.rightUp)),
            .expectFile(dev + "buffer/enable", "1"),
            .expectFile(dev + "scan_elements/in_accel_x_en", "1"),
            .expectFile(dev + "trigger/current_trigger", "accel_3d-dev0"),
            .alive,
        ]
        let r = try Self.runAsServiceUser(user, devices: ["buffered.umockdev"], steps: steps, arguments: ["--serve", "--socket", socket])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("as the display accelerometer, buffered"), "\(r.err)")
        #expect(!r.err.contains("Permission denied") && !r.err.contains("polling"), "\(r.err)")
        Self.expectUnprivileged(r, uid: try user.passwdEntry()[2])
    }

    @Test("The packaged rotationd, as the rotationd user, makes its tablet-mode switch through a root-only /dev/uinput once the group may write it as the drop-in grants, and SW_TABLET_MODE reads back 1 in tablet; without the ACL it names the fix and serves on")
    func tabletModeSwitchAsServiceUser() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        let dropIn = try String(contentsOfFile: root.path("usr/share/rotationd/tablet-mode-switch.conf"), encoding: .utf8)
        let grant = try #require(dropIn.split(separator: "\n").first { $0.hasPrefix("ExecStartPre=") && $0.contains("setfacl -m") })
        let acl = grant.split(separator: " ").map(String.init)
        #expect(acl.suffix(3) == ["-m", "g:rotationd:w", "/dev/uinput"], "\(grant)")
        for granted in [true, false] {
            let socket = "/tmp/rotationd-user-switch-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            // The node as the kernel makes it: root's, mode 0600. The emulated node is a PTY, and devpts takes no
            // ACL, so the drop-in's entry for the group (write) is given as the node's group and its write bit.
            // (The hinge sensor's raw attribute is read as anyone may; the rule grants nothing on it.)
            let uinput: [Step] = [.uinput] + (granted ? [.chown("dev/uinput", "root:rotationd"), .chmod("dev/uinput", "620")]
                                                      : [.chown("dev/uinput", "root:root"), .chmod("dev/uinput", "600")])
            let fold: [Step] = granted ? [
                .wait(.stdout(#""posture":"laptop""#, within: Tolerance.listing)),
                .readSwitches(Step.madeByUInput, [.tabletMode: false]),
                .set("iio:device1", ["in_angl0_raw": 3500]),
                .wait(.stdout(#""posture":"tablet""#)),
                .readSwitches(Step.madeByUInput, [.tabletMode: true]),
            ] : [.wait(.stderr("cannot open /dev/uinput", within: Tolerance.listing))]
            let steps: [Step] = grants.steps(devpath: "/devices/platform/accel-polled/iio:device0", node: "iio:device0", subdevice: false, package: root.path)
                + uinput + [.set("iio:device1", ["in_angl0_raw": 1100]), .start] + fold + [.credentials, .alive]
            let r = try Self.runAsServiceUser(user, devices: ["hinge-hid.umockdev"], steps: steps,
                                              arguments: ["--serve", "--socket", socket, "--print", "--tablet-mode-switch"])
            #expect(r.status == 0, "granted \(granted): \(r.out)\(r.err)")
            #expect(r.results.uinputCreated.count == (granted ? 1 : 0), "granted \(granted): \(r.err)")
            if granted {
                #expect(r.results.switchReadings.map { $0.states?["tablet-mode"] } == [0, 1], "\(r.err)")
            } else {
                #expect(r.err.contains("rotationd: error: --tablet-mode-switch: cannot open /dev/uinput: Permission denied (rotationd.service may write it only with the drop-in"), "\(r.err)")
            }
            Self.expectUnprivileged(r, uid: try user.passwdEntry()[2])
        }
    }

    @Test("The packaged rotationd, as the rotationd user with the rule's grants on an emulated polled accelerometer, follows it, with no capability")
    func capturesPolled() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        let socket = "/tmp/rotationd-user-polled-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let steps: [Step] = grants.steps(devpath: "/devices/platform/accel-polled/iio:device0", node: "iio:device0", subdevice: false, package: root.path) + [
            .start,
            .connect(socket),
            .wait(.socket(Self.normal)),
            .credentials,
            .set("iio:device0", ["in_accel_x_raw": 8, "in_accel_y_raw": 521, "in_accel_z_raw": -67]),
            .wait(.socket(Self.rightUp)),
            .alive,
        ]
        let r = try Self.runAsServiceUser(user, devices: ["polled.umockdev"], steps: steps, arguments: ["--serve", "--socket", socket])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("as the display accelerometer, polled"), "\(r.err)")
        #expect(!r.err.contains("Permission denied"), "\(r.err)")
        Self.expectUnprivileged(r, uid: try user.passwdEntry()[2])
    }

    @Test("The packaged rotationd, as the rotationd user, reads the controls of the camera sensor sub-device the rule granted it, and is refused the others")
    func readsSensorControls() throws {
        let (_, root) = try DebianPackageTests.unpack()
        let user = try ServiceUser(package: root.path)
        let grants = try RuleGrants(rules: String(contentsOfFile: root.path("usr/lib/udev/rules.d/60-rotationd.rules"), encoding: .utf8))
        let devpath = "/devices/pci0000:00/0000:00:15.3/i2c_designware.3/i2c-3/i2c-INT347A:00/video4linux/v4l-subdev1"
        // Both nodes as udev's default rules leave every video4linux node: root's, group video, mode 0660.
        let steps: [Step] = [.v4l2Controls("/dev/v4l-subdev0", ["orientation": 0, "rotation": 0]),
                              .v4l2Controls("/dev/v4l-subdev1", ["orientation": 1, "rotation": 90]),
                              .chown("dev/v4l-subdev0", "root:video"), .chmod("dev/v4l-subdev0", "660"),
                              .chown("dev/v4l-subdev1", "root:video"), .chmod("dev/v4l-subdev1", "660")]
            + grants.steps(devpath: devpath, node: "v4l-subdev1", subdevice: true, package: root.path)
            + [.start, .wait(.stdout("v4l-subdev1", within: Tolerance.slowReply))]
        // The nodes are files, not PTYs as in the other camera fixtures: devpts has no ACLs, while the devtmpfs
        // of a real /dev does.
        let r = try Self.runAsServiceUser(user, devices: ["camera-subdevice-file.umockdev"], steps: steps, arguments: ["--list"])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let text = r.out + r.err
        #expect(text.contains(": /dev/v4l-subdev1, ov8865 3-0010"), "\(text)")
        #expect(text.contains("  mount: 270° (source sensor: V4L2_CID_CAMERA_SENSOR_ROTATION=90, a counter-clockwise correction)"), "\(text)")
        #expect(!text.contains("/dev/v4l-subdev1 to read its camera controls"), "\(text)")
        #expect(text.contains("cannot open /dev/v4l-subdev0 to read its camera controls: Permission denied"), "\(text)")
    }
}
