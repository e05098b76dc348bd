import Glibc
import RotationProtocol
import RotationSensors
import RotationSystem

/// `rotationd --report DIR`: a bug report about the rotation in one command.
///
/// It records the device for a few seconds while the user turns it (through a running service's raw samples,
/// else from the sensors directly, as `--record` does), replays the recording as `--replay` would, and writes
/// what a maintainer asks for (the version, the machine's modalias, `--list`, udev's properties of every sensor
/// and camera, the trace, the states published for it and their picture) into a directory it then packs into
/// `DIR/rotationd-report-STAMP.tar.gz` with the system's tar, the picture beside it as `.svg`.
struct Report {
    /// The archive's members and what each holds, as `report.txt` lists them.
    static let members: [(name: String, what: String)] = [
        ("report.txt", "this summary"),
        ("version.txt", "rotationd --version"),
        ("machine.txt", "the DMI modalias the hwdb matches, the device tree's compatible strings, the product, the kernel"),
        ("list.txt", "rotationd --list: the sensors and cameras found, their calibration and where each value comes from"),
        ("udev.txt", "udev's properties of every IIO device (the sensors) and video4linux device (the cameras)"),
        ("trace.csv", "the recording: calibrated samples (Docs/trace-format.md); rotationd --replay trace.csv plays it back"),
        ("states.jsonl", "the states published for the recording, as rotationd --replay trace.csv prints them (Docs/protocol.md)"),
        ("picture.svg", "the recording and the decisions drawn: open it in a web browser"),
        ("service.jsonl", "recorded through a service only: its hello and the states it published while the report ran"),
    ]

    let options: DaemonOptions

    /// Writes the report; 0 when the archive is written, 1 when the report could not be written (what was written
    /// is left in its directory, and said), was stopped before it recorded, or the service would not share its
    /// samples.
    func run() -> Int32 {
        var stopSignals = PermanentSubscriber.blockStopSignals()
        guard let parent = options.report else { return 2 }
        let name = "rotationd-report-" + Self.stamp("%Y%m%d-%H%M%S")
        let dir = parent + "/" + name
        var createdParent = false, createdDir = false
        do {
            let (service, why) = try ServiceRecording.connect(path: socketPath)
            createdParent = try Self.makeDirectory(parent, mayExist: true)
            createdDir = try Self.makeDirectory(dir, mayExist: false)
            say("\(ServiceVersion.name) \(ServiceVersion.current): writing a report on the rotation to \(parent)/\(name).tar.gz")
            let facts = MachineFacts.read()
            try write("\(ServiceVersion.name) \(ServiceVersion.current)\n", dir, "version.txt")
            try write(facts.text, dir, "machine.txt")
            try write(UDevListing.text(subsystems: ["iio", "video4linux"]), dir, "udev.txt")
            say("listing the sensors and cameras (rotationd --list): hold the device still for up to \(Int(Listing.listSamplingTime)) s")
            try write(Listing.text(options), dir, "list.txt")
            // Ctrl-C while listing: nothing recorded yet, so nothing to report.
            guard !Self.stopRequested(&stopSignals, wait: 0) else {
                Self.discard(dir, parent: createdParent ? parent : nil)
                say("stopped before the recording: nothing written")
                return 1
            }
            let recorded = try record(dir + "/trace.csv", service: service, why: why, stopSignals: &stopSignals)
            if let service { try write(service.lines.joined(separator: "\n") + "\n", dir, "service.jsonl") }
            let changes = try replay(dir, recorded, facts)
            try write(summary(recorded, changes: changes, service: service), dir, "report.txt")
            say(Self.outcome(recorded, changes: changes)
                + (recorded.samples == 0 ? "; no sample came: list.txt and the messages above say why" : ""))
        } catch {
            Log.error("--report: \(error)" + (createdDir ? "; what was written is in \(dir)" : ""))
            return 1
        }
        return pack(name, in: parent, createdParent: createdParent)
    }

    /// What a report's recording gave.
    struct Recording {
        /// How it was recorded, for `report.txt`.
        let how: String
        /// The samples written and the seconds recorded.
        let samples: Int
        let seconds: Double
        /// The cameras the states are published with: the service's, or those found.
        let cameras: [Camera]
        /// Why it ended before its time, if it did.
        let ended: String?
    }

    /// The socket of the service to record through: `--socket`, else the one a client would find.
    private var socketPath: String {
        SocketPath.resolveForClient(explicit: options.socket, environment: { getenv($0).map { String(cString: $0) } },
                                    isRoot: geteuid() == 0, exists: { access($0, F_OK) == 0 })
    }

    /// One line of the report's account on standard output.
    func say(_ line: String) { OutputStreamFD.standardOutput.write(line + "\n") }

    /// Writes `text` as the member `name` of `dir`.
    private func write(_ text: String, _ dir: String, _ name: String) throws(SystemError) {
        try TextFile.write(text, to: dir + "/" + name)
    }

    /// The local time now in `format` (strftime).
    static func stamp(_ format: String) -> String {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, format, &local)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates `path` (mode 0755); one that exists already is fine only when `mayExist`. Returns whether it made it.
    @discardableResult
    static func makeDirectory(_ path: String, mayExist: Bool) throws(SystemError) -> Bool {
        guard mkdir(path, 0o755) != 0 else { return true }
        let e = Errno.current
        if e == .exists && mayExist { return false }
        throw SystemError(operation: "create the directory", path: path, errno: e,
                          fix: e == .noSuchFileOrDirectory ? "create its parent first" : e == .permissionDenied ? "choose a directory you may write to" : nil)
    }

    /// Removes the report's directory `dir` with its members, and `parent` when the report made it and it is empty.
    static func discard(_ dir: String, parent: String?) {
        for m in members { unlink(dir + "/" + m.name) }
        rmdir(dir)
        if let parent { rmdir(parent) }
    }
}
