import Glibc
import RotationPicture
import RotationProtocol
import RotationSensors
import RotationService
import RotationSystem

/// The report's recording, its replay, its summary and its archive.
extension Report {
    /// What the user is asked to do while the report records.
    static let instructions = "hold the device upright, then turn it to each edge in turn, pausing a second at each; "
        + "lay it flat on a table and lift it again"

    /// Records `options.duration` s into `path`, through `service` when one answers (`why` says why not
    /// otherwise), showing the seconds left; a stop signal ends it early.
    func record(_ path: String, service: ServiceRecording?, why: String, stopSignals: inout sigset_t) throws(SystemError) -> Recording {
        let recorder = try TraceRecorder(path: path)
        let duration = options.duration
        var progress = Progress()
        let start = MonotonicClock.now()
        if let service {
            say("recording through the service on \(service.path) (\(service.hello.service) \(service.hello.version), "
                + "sensor \(service.hello.sensor ?? "none")), from its raw samples")
            say("recording for \(JSONWriter.format(duration, decimals: 1)) s: \(Self.instructions); Ctrl-C ends it early")
            let (samples, ended) = service.record(into: recorder, duration: duration, stop: { Self.stopRequested(&stopSignals, wait: 0) },
                                                  progress: { progress.show(left: $0, samples: $1) })
            progress.finish()
            return Recording(how: "through the service on \(service.path), from its raw samples", samples: samples,
                             seconds: MonotonicClock.now() - start, cameras: service.hello.cameras, ended: ended)
        }
        say("recording directly from the sensors, as rotationd --record does: \(why)")
        say("recording for \(JSONWriter.format(duration, decimals: 1)) s: \(Self.instructions); Ctrl-C ends it early")
        let output = TraceRecordingOutput(recorder: recorder)
        var stopped = false
        let cameras = PermanentSubscriber.follow(options, outputs: [output], everySample: true) {
            while case let left = start + duration - MonotonicClock.now(), left > 0, !stopped {
                progress.show(left: left, samples: output.samples)
                stopped = Self.stopRequested(&stopSignals, wait: min(left, 0.5))
            }
        }
        progress.finish()
        return Recording(how: "directly from the sensors (\(why))", samples: output.samples, seconds: MonotonicClock.now() - start,
                         cameras: cameras, ended: stopped ? "stopped by a signal" : nil)
    }

    /// Whether a stop signal of `set` (blocked) arrived within `wait` s; it is taken.
    static func stopRequested(_ set: inout sigset_t, wait: Double) -> Bool {
        var timeout = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - wait.rounded(.down)) * 1e9))
        return sigtimedwait(&set, nil, &timeout) > 0
    }

    /// The seconds left and the samples so far, on one line rewritten in place on a terminal, else a line a second.
    struct Progress {
        private var shown: Int?
        private let terminal = isatty(1) == 1

        mutating func show(left: Double, samples: Int) {
            let seconds = Int(left.rounded(.up))
            guard seconds != shown else { return }
            shown = seconds
            let text = "  \(seconds) s left, \(samples) samples"
            OutputStreamFD.standardOutput.write(terminal ? "\r" + text + "   " : text + "\n")
        }

        func finish() { if terminal && shown != nil { OutputStreamFD.standardOutput.write("\n") } }
    }

    /// Replays the recording in `dir` as `--replay` prints it, into `states.jsonl`, and draws `picture.svg`;
    /// returns the changes published.
    func replay(_ dir: String, _ recorded: Recording, _ facts: MachineFacts) throws(SystemError) -> [PictureRecording.Change] {
        // A recording with no sample has no header: nothing to replay.
        let samples = (try? TraceReplay(path: dir + "/trace.csv"))?.samples ?? []
        let feed = ReplayFeeder(samples: samples, realtime: false, ignoreGyro: options.noGyro, sensorDescription: nil)
        let states = dir + "/states.jsonl"
        let fd = open(states, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(operation: "create", path: states, errno: .current) }
        let picture = PictureOutput()
        // Configured cameras stand, as in any replay; else those the recording found or the service published.
        let cameras = options.cameras.isEmpty ? recorded.cameras : options.cameras
        let status = Serve(options: options).printReplay(feed, fd: fd, cameras: cameras, picture: picture)
        close(fd)
        guard status == 0 else { throw SystemError(operation: "write", path: states, errno: .ioError) }
        let title = "rotationd --report: \(facts.product ?? "an unknown machine"), \(Self.stamp("%Y-%m-%d %H:%M"))"
        let recording = picture.recording(title: title, samples: samples, options: options)
        let svg = TracePicture.svg(recording)
        try TextFile.write(svg, to: dir + "/picture.svg")
        return recording.changes
    }

    /// What was recorded and published, in a line: the samples, the changes and the rotations among them.
    static func outcome(_ recorded: Recording, changes: [PictureRecording.Change]) -> String {
        var rotations: [String] = []
        for c in changes where c.state.rotation.map({ String($0.degrees) }) != rotations.last {
            if let r = c.state.rotation { rotations.append(String(r.degrees)) }
        }
        return "recorded \(recorded.samples) samples in \(JSONWriter.format(recorded.seconds, decimals: 1)) s; published for "
            + "them: \(changes.count) changes, rotations \(rotations.isEmpty ? "none" : rotations.joined(separator: ", "))"
    }

    /// The report's `report.txt`: when and how it was made, what the engine published, and the members.
    func summary(_ recorded: Recording, changes: [PictureRecording.Change], service: ServiceRecording?) -> String {
        var lines = [
            "rotationd bug report, written \(Self.stamp("%Y-%m-%d %H:%M:%S %z")) by \(ServiceVersion.name) \(ServiceVersion.current)",
            "command: " + CommandLine.arguments.joined(separator: " "),
            "recording: \(recorded.how)",
            Self.outcome(recorded, changes: changes),
        ]
        if let ended = recorded.ended { lines.append("the recording ended early: \(ended)") }
        lines.append("")
        lines.append("files:")
        for m in Self.members where m.name != "service.jsonl" || service != nil {
            lines.append("  " + m.name + String(repeating: " ", count: max(14 - m.name.count, 1)) + m.what)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Packs the directory `name` in `parent` into `NAME.tar.gz`, puts the picture beside it as `NAME.svg`, hands
    /// both (and `parent`, when the report made it) to the user who ran sudo, and removes the directory; returns
    /// the exit status.
    func pack(_ name: String, in parent: String, createdParent: Bool) -> Int32 {
        let dir = parent + "/" + name, archive = parent + "/" + name + ".tar.gz", picture = parent + "/" + name + ".svg"
        do {
            try ArchiveCommand.pack(name, in: parent, to: archive)
        } catch {
            Log.error("--report: \(error); the report's files are in \(dir)")
            return 1
        }
        // Packed: the directory's picture moves out beside the archive (one file system: both are in `parent`).
        if rename(dir + "/picture.svg", picture) != 0 {
            Log.error("--report: cannot move \(dir)/picture.svg to \(picture): \(Errno.current); the report's files are in \(dir)")
            return 1
        }
        Self.discard(dir, parent: nil)
        Self.giveToSudoUser((createdParent ? [parent] : []) + [archive, picture])
        say("wrote \(archive)")
        say("and its picture \(picture) (open it in a web browser); attach both to the bug report")
        OutputStreamFD.standardOutput.write(archive + "\n")
        return 0
    }

    /// Under sudo, makes `paths` the invoking user's (`SUDO_UID`, `SUDO_GID`), who will attach them.
    static func giveToSudoUser(_ paths: [String]) {
        guard geteuid() == 0, let uid = getenv("SUDO_UID").flatMap({ UInt32(String(cString: $0)) }),
              let gid = getenv("SUDO_GID").flatMap({ UInt32(String(cString: $0)) }) else { return }
        for p in paths { _ = chown(p, uid, gid) }
    }
}
