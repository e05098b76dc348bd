import RotationDaemon
import RotationEngine
import RotationProtocol

/// A command-line mistake, with the fix.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// What `rotationd` was asked to do: the run's options, and the requests the command line answers itself.
struct Options {
    /// What the daemon runs with.
    var daemon = DaemonOptions()
    var help = false
    var version = false
    var verbose = false

    static let usage = """
    usage: rotationd [options]

    Publishes the device rotation and per-camera capture angles from the display accelerometer.
    With no mode option it serves the live sensor on the Unix socket (as if --serve were given).

      --replay FILE.csv     run the engine over a recorded trace and print the JSON lines it would publish
      --picture FILE.svg    with --replay: also draw the trace and the decisions to FILE.svg: each sensor's
                            axes against time, the rotation, flat spells and posture published, and the rule
                            behind each change (Docs/algorithm.md, "The picture")
      --realtime            with --replay: pace samples by their timestamps instead of running flat out
      --no-gyro             ignore gyroscope input, use the accelerometer alone
      --camera NAME:FACING:MOUNT[:DEVICE[:PANEL]]
                            configure a camera (FACING is front, back or external; MOUNT in degrees
                            clockwise; DEVICE its node, such as /dev/video0, or empty; PANEL lid, the
                            default, or base for a convertible's keyboard panel); repeat for each (at most 6,
                            names unique, at most 32 bytes, without control characters, quotes or
                            backslashes). Live, cameras are also found through udev
                            and followed as they come and go; a configured camera overrides the found one
                            with its DEVICE (or, without one, its NAME). --replay without --camera uses
                            front:front:90 and back:back:90
      --set NAME=VALUE      set one filter threshold by name (repeatable); see Docs/algorithm.md
                            for the names, their meaning and defaults
      --report DIR          write a bug report about the rotation to DIR: a recording of a few seconds while
                            you turn the device, what --list prints, the version, the machine's modalias,
                            the udev properties of every sensor and camera and the states published for the
                            recording, in one .tar.gz, and its picture beside it (SVG). Where the service
                            runs, it records through the service's raw samples (as root, or in its
                            --samples-group; --socket PATH names another service)
      --duration SEC        with --report: record for SEC seconds (default 10, at most 600)
      --list                list every accelerometer, gyroscope and hinge sensor found, with calibration
                            and capture mode, and every camera, with where its facing and mount come from; the
                            display accelerometer is read for up to 3 s to tell what 1 g reads on it
      --print               read the live sensor and print the JSON lines published, one per change
      --fix-mount           fix a screen that turns the wrong way: hold the device in three poses (and a
                            convertible's keyboard base in three more), and rotationd works out each
                            accelerometer's mount matrix, prints the hwdb entry for this machine and, when
                            you agree, installs it in /etc/udev/hwdb.d/61-sensor-local.hwdb, has udev apply
                            it and checks it with one more pose (Docs/hwdb-quirks.md). Needs root to install;
                            the rotationd service may keep running
      --yes                 with --fix-mount: install the entry without asking
      --record FILE.csv     read the live sensor and write its calibrated samples as a trace (always
                            at the full rate)
      --rate HZ             live sample rate while the device moves (default 50)
      --full-rate           read every sample at the full rate, also while the device is still; with
                            --replay, feed every sample of the trace (by default the samples a live
                            capture would skip while still are skipped; see Docs/sensors.md)
      --always              keep sampling with no subscriber connected
      --tablet-mode-switch  make a uinput SW_TABLET_MODE switch that follows the posture (1 in stand, tent
                            and tablet, 0 in laptop and closed) for libinput and the desktop, and sample with
                            no subscriber too; live only. Not made where the kernel has such a switch, or
                            where no base accelerometer or hinge sensor tells the posture (Docs/posture.md)
      --serve               publish over the Unix socket (protocol: Docs/protocol.md). With --replay,
                            serving paces the trace in real time (--realtime is implied), stamps t on
                            CLOCK_MONOTONIC as a live sensor does (printing keeps the trace's time) and
                            keeps the last state published after the trace ends, until SIGTERM or SIGINT.
                            Without --replay it serves the live sensor; --print adds standard output
      --socket PATH         the socket to serve on (implies --serve). Default: $ROTATIOND_SOCKET, else
                            /run/rotationd/rotationd.sock as root, else $XDG_RUNTIME_DIR/rotationd.sock.
                            Under systemd socket activation (LISTEN_FDS) the passed socket is used
      --socket-mode MODE    octal file mode of a socket rotationd creates (default 0666)
      --samples-group NAME  let members of group NAME subscribe to raw samples (root always may)
      --client-timeout SEC  disconnect a client that has read nothing for SEC seconds (default 30)
      --speed FACTOR        with --realtime: play the trace FACTOR times faster than recorded (default 1)
      --verbose             log at debug level: every connection, what 1 g reads on a correct sensor
      --version             print the version and exit
      -h, --help            show this help

    Without --serve or --socket, --replay prints one JSON line per change on standard output and exits.
    Logs go to standard error, one line each with its level. SIGTERM and SIGINT stop the service
    cleanly; it removes the socket file it created (never one systemd passed in).

    Exit status: 0 on success, 1 when the service cannot start (for example another instance is
    already serving on the socket) or a report or picture cannot be written, 2 on bad arguments or a
    malformed trace.
    """

    static func parse(_ args: [String]) throws(UsageError) -> Options {
        var o = Options()
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < args.count else { throw UsageError(description: "\(flag) needs a value; see --help") }
            return args[i]
        }
        var given: Set<String> = []
        while i < args.count {
            let a = args[i]
            given.insert(a)
            switch a {
            case "--replay": o.daemon.replay = try value(a)
            case "--realtime": o.daemon.realtime = true
            case "--no-gyro": o.daemon.noGyro = true
            case "--list": o.daemon.list = true
            case "--print": o.daemon.print = true
            case "--record": o.daemon.record = try value(a)
            case "--always": o.daemon.always = true
            case "--tablet-mode-switch": o.daemon.tabletModeSwitch = true
            case "--rate":
                let text = try value(a)
                guard let hz = Double(text), hz.isFinite, hz >= 0.1, hz <= 10000 else {
                    throw UsageError(description: "--rate \(text): expected a rate in Hz between 0.1 and 10000, such as 50")
                }
                o.daemon.rate = hz
            case "--camera": try add(try parseCamera(try value(a)), to: &o.daemon.cameras)
            case "--set": try parseSetting(try value(a), into: &o.daemon.configuration)
            case "--serve": o.daemon.serve = true
            case "--socket": o.daemon.socket = try value(a); o.daemon.serve = true
            case "--socket-mode":
                let v = try value(a)
                guard let mode = UInt32(v, radix: 8), mode <= 0o777 else {
                    throw UsageError(description: "--socket-mode \(v): expected an octal file mode such as 0660")
                }
                o.daemon.socketMode = mode
            case "--samples-group": o.daemon.samplesGroup = try value(a)
            case "--client-timeout": o.daemon.clientTimeout = try positive(a, try value(a))
            case "--speed": o.daemon.speed = try positive(a, try value(a))
            case "--fix-mount": o.daemon.fixMount = true
            case "--yes": o.daemon.assumeYes = true
            case "--verbose": o.verbose = true
            case "--full-rate": o.daemon.fullRate = true
            case "--version": o.version = true
            case "-h", "--help": o.help = true
            default:
                guard try parseReportOption(a, into: &o.daemon, value: { () throws(UsageError) in try value(a) }) else {
                    throw UsageError(description: "unknown option \(a); see --help")
                }
            }
            i += 1
        }
        if let problem = o.daemon.configuration.validate() { throw UsageError(description: "--set: \(problem)") }
        try checkCombination(o, given: given)
        return o
    }

    /// Takes `flag` when it is one of the report's and the picture's options (`--report`, `--duration`,
    /// `--picture`), its value from `value`; false for any other flag.
    static func parseReportOption(_ flag: String, into daemon: inout DaemonOptions,
                                  value: () throws(UsageError) -> String) throws(UsageError) -> Bool {
        switch flag {
        case "--picture": daemon.picture = try value()
        case "--report": daemon.report = try value()
        case "--duration":
            let text = try value()
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= DaemonOptions.maxDuration else {
                throw UsageError(description: "--duration \(text): expected seconds to record, more than 0 and at most \(Int(DaemonOptions.maxDuration))")
            }
            daemon.duration = seconds
        default: return false
        }
        return true
    }

    /// Refuses an option the chosen mode would silently ignore, naming it and saying what it applies to.
    static func checkCombination(_ o: Options, given: Set<String>) throws(UsageError) {
        if o.help || o.version { return }
        func refuse(_ flags: [String], _ reason: String) throws(UsageError) {
            if let f = flags.first(where: given.contains) {
                throw UsageError(description: "\(f) \(reason); see --help")
            }
        }
        let serveOnly = ["--socket-mode", "--samples-group", "--client-timeout"]
        if o.daemon.report == nil { try refuse(["--duration"], "applies only to --report") }
        if o.daemon.replay == nil || o.daemon.serve { try refuse(["--picture"], "draws a printed --replay (without --serve or --socket)") }
        if o.daemon.fixMount {
            try refuse(given.subtracting(["--fix-mount", "--yes", "--verbose"]).sorted(),
                       "cannot be combined with --fix-mount, which only measures the mount matrix and installs its fix")
        } else {
            try refuse(["--yes"], "applies only to --fix-mount")
        }
        if o.daemon.report != nil {
            try refuse(["--replay", "--list", "--print", "--record", "--serve", "--always", "--realtime", "--speed",
                        "--tablet-mode-switch", "--fix-mount"] + serveOnly,
                       "cannot be combined with --report, which records the live sensor for a while and writes the report")
        } else if o.daemon.list {
            try refuse(["--replay", "--print", "--record", "--serve", "--socket", "--always", "--realtime", "--speed",
                        "--set", "--full-rate", "--tablet-mode-switch"] + serveOnly,
                       "cannot be combined with --list, which only lists the sensors and cameras and exits")
        } else if o.daemon.replay != nil {
            try refuse(["--record"], "records the live sensor and cannot be combined with --replay (the trace is already a recording)")
            try refuse(["--rate", "--always", "--tablet-mode-switch"], "applies to the live sensor, not to --replay")
            if !o.daemon.serve {
                try refuse(serveOnly, "applies only when serving (--serve or --socket)")
                if !o.daemon.realtime { try refuse(["--speed"], "paces a replay: add --realtime or --serve") }
            }
        } else {
            try refuse(["--realtime", "--speed"], "applies only to --replay")
            if o.daemon.serve {
                try refuse(["--record"], "cannot be combined with serving; run rotationd --record FILE on its own (the service samples only while a client is connected)")
            } else if o.daemon.print || o.daemon.record != nil {
                try refuse(["--always"] + serveOnly, "applies only when serving (--serve or --socket); --print and --record sample all the time")
            }
        }
    }

    /// Adds a `--camera` to `cameras`, refusing a name or a device given twice, or one camera too many.
    static func add(_ camera: Camera, to cameras: inout [Camera]) throws(UsageError) {
        guard !cameras.contains(where: { $0.name == camera.name }) else {
            throw UsageError(description: "--camera \(camera.name): a camera by that name is already configured; give each camera a different name")
        }
        if let device = camera.device, cameras.contains(where: { $0.device == device }) {
            throw UsageError(description: "--camera \(camera.name): another camera is configured with \(device); give each device once")
        }
        guard cameras.count < Camera.maxCount else {
            throw UsageError(description: "--camera \(camera.name): at most \(Camera.maxCount) cameras can be configured")
        }
        cameras.append(camera)
    }

    static func positive(_ flag: String, _ v: String) throws(UsageError) -> Double {
        guard let d = Double(v), d.isFinite, d > 0 else {
            throw UsageError(description: "\(flag) \(v): expected a positive number")
        }
        return d
    }

    static func parseSetting(_ s: String, into configuration: inout EngineConfiguration) throws(UsageError) {
        let parts = s.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let v = Double(parts[1]) else {
            throw UsageError(description: "--set \(s): expected NAME=VALUE such as dwellTime=0.1; valid names: \(EngineConfiguration.parameterNames)")
        }
        do { try configuration.set(String(parts[0]), to: v) } catch {
            throw UsageError(description: "--set \(s): \(error)")
        }
    }


    static func parseCamera(_ s: String) throws(UsageError) -> Camera {
        let parts = s.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[0].isEmpty,
              let facing = CameraFacing(rawValue: String(parts[1])),
              let mount = Int(parts[2]), mount % 90 == 0 else {
            throw UsageError(description: "--camera \(s): expected NAME:FACING:MOUNT[:DEVICE[:PANEL]], FACING one of front, back, external, MOUNT a multiple of 90, PANEL lid or base, such as front:front:270, usb:external:0:/dev/video2 or world:front:0::base")
        }
        guard parts[0].utf8.count <= Camera.maxNameBytes else {
            throw UsageError(description: "--camera \(s): the name is \(parts[0].utf8.count) bytes long; use at most \(Camera.maxNameBytes)")
        }
        guard Camera.isValidName(String(parts[0])) else {
            throw UsageError(description: "--camera \(s): a name must not hold control characters, quotes or backslashes; use letters, digits and dashes such as usb-left")
        }
        var device: String?
        var panel = CameraPanel.lid
        if parts.count == 4 {
            // A device path may hold colons itself (/dev/v4l/by-path/...), so the panel is the last field only
            // when it names one.
            var path = Substring(parts[3])
            if let colon = path.lastIndex(of: ":"), let p = CameraPanel(rawValue: String(path[path.index(after: colon)...])) {
                panel = p
                path = path[..<colon]
            } else if let p = CameraPanel(rawValue: String(path)) {
                panel = p
                path = ""
            } else if path.hasSuffix(":") || !path.contains("/") && path.contains(":") {
                let given = path[path.index(after: path.lastIndex(of: ":")!)...]
                throw UsageError(description: "--camera \(s): PANEL is \"\(given)\"; use lid (the display's panel, the default) or base (the keyboard's), such as world:front:0::base")
            }
            if !path.isEmpty {
                guard Camera.isValidDevice(String(path)) else {
                    throw UsageError(description: "--camera \(s): DEVICE must be an absolute path of at most \(Camera.maxDeviceBytes) bytes without control characters, quotes or backslashes, such as /dev/video0")
                }
                device = String(path)
            }
        }
        return Camera(name: String(parts[0]), facing: facing, mount: mount, device: device, source: .config, panel: panel)
    }
}
