import Glibc
import RotationSystem

/// A record on disk of every IIO attribute a capture changed (a buffer it enabled, an event it armed, a sampling
/// frequency, a trigger) with the value it found, kept until the capture has put them back: after a crash, the
/// next capture puts back exactly what was rotationd's own, and nothing of another program's.
///
/// One file per process and kind, `KIND-PID` in `directory` (`capture-PID` for the sensors, `switch-PID` for the
/// tablet-mode switch rotationd makes, which records each value it reports), held locked (`flock`) while the
/// process lives; a file whose lock can be taken belongs to a process that ended without putting its changes back. The directory outlives
/// the process: systemd's `RuntimeDirectory=rotationd/sensors` with `RuntimeDirectoryPreserve=restart`, so it is
/// kept across `Restart=on-failure`. Each change is one appended line, `changed ID NAME FILE VALUE`
/// (tab-separated), written before the attribute is. Owned by one thread at a time (the sensor thread for the
/// sensors).
public final class SettingsJournal {
    /// One attribute changed, and the value it held before.
    public struct Entry: Equatable, Sendable {
        public var id: String
        public var name: String
        public var file: String
        public var value: String

        public init(id: String, name: String, file: String, value: String) {
            self.id = id
            self.name = name
            self.file = file
            self.value = value
        }

        /// The entry's line in the journal: `changed ID NAME FILE VALUE`, tab-separated, with its newline.
        public var line: String { "changed\t\(id)\t\(name)\t\(file)\t\(value)\n" }
    }

    /// Where the journals are: `$RUNTIME_DIRECTORY/sensors` when systemd (or a test) gives a runtime directory
    /// (`rotationd/sensors` inside it when it names rotationd's socket directory), else `/run/rotationd/sensors`
    /// as root, else `$XDG_RUNTIME_DIR/rotationd-sensors`; nil when there is none.
    public static var directory: String? {
        if let dirs = getenv("RUNTIME_DIRECTORY").map({ String(cString: $0) }), let first = dirs.split(separator: ":").first {
            // systemd passes every RuntimeDirectory= as a path; the unit asks for rotationd/sensors.
            return first.hasSuffix("/sensors") ? String(first) : first + "/sensors"
        }
        if getuid() == 0 { return "/run/rotationd/sensors" }
        return getenv("XDG_RUNTIME_DIR").map { String(cString: $0) + "/rotationd-sensors" }
    }

    private let path: String
    private var fd: Int32 = -1
    private var failed = false

    /// What is lost when the journal cannot be written, for the warning that says so.
    private let loss: String

    /// A journal of `kind` for this process in `directory`; nothing is created until the first change. `loss`
    /// says what goes unrecorded if the file cannot be written.
    public init(directory: String, kind: String = "capture",
                loss: String = "what rotationd changes on the sensors is not recorded, so after a crash it cannot be put back") {
        path = directory + "/\(kind)-\(getpid())"
        self.loss = loss
    }

    deinit { clear() }

    /// Records that `file` of device `id` (named `name`) held `value` before this process changed it.
    public func record(_ entry: Entry) {
        guard open() else { return }
        if !OutputStreamFD(fd: fd).write(entry.line) || fdatasync(fd) != 0 {
            warnOnce(SystemError(operation: "write", path: path, errno: .current))
        }
    }

    /// The journal's open descriptor (appending), made now if need be; -1 when it cannot be written.
    public var descriptor: Int32 { open() ? fd : -1 }

    /// Forgets every record (all changes are put back): the file is removed.
    public func clear() {
        guard fd >= 0 else { return }
        unlink(path)
        Glibc.close(fd)
        fd = -1
    }

    private func open() -> Bool {
        if fd >= 0 { return true }
        if failed { return false }
        let dir = String(path[..<path.lastIndex(of: "/")!])
        try? Directory.make(dir)  // an open that then fails says why
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            warnOnce(SystemError(operation: "open", path: path, errno: .current))
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
            failed = true
            return false
        }
        return true
    }

    private func warnOnce(_ error: SystemError) {
        Log.once(.warning, "\(error): \(loss) (give the service a writable runtime directory: RuntimeDirectory=rotationd/sensors)")
    }

    /// The records of `kind` of processes that ended without putting their changes back, each file locked while it
    /// is read and removed once `putBack` has seen it; this process's own is skipped.
    public static func recover(in directory: String, kind: String = "capture", putBack: ([Entry], Int32) -> Void) {
        guard let dir = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(kind + "-"), name != "\(kind)-\(getpid())" { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() {
            let path = directory + "/" + name
            let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { Glibc.close(fd) }
            // A live process holds its lock: its changes are its own to put back.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, let text = try? TextFile.read(path) else { continue }
            putBack(parse(text), Int32(name.dropFirst(kind.count + 1)) ?? 0)
            unlink(path)
        }
    }

    /// The entries of a journal's text; a line cut short by a crash is skipped.
    static func parse(_ text: String) -> [Entry] {
        // A line is whole once its newline is there.
        let whole = text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        return whole.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
            guard f.count == 5, f[0] == "changed" else { return nil }
            return Entry(id: String(f[1]), name: String(f[2]), file: String(f[3]), value: String(f[4]))
        }
    }
}
