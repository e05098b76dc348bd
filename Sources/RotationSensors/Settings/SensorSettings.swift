import Glibc
import RotationSystem

/// The attributes a capture changes on its devices, written through libiio, and put back as they were found
/// when the capture ends, however it ends: a sensor must never be left at a rate, a batch size or a trigger
/// nobody asked it for.
///
/// Each value is recorded in the process's `SettingsJournal` before it is first changed, so that a capture after
/// a crash puts it back (`putBack`). Nothing is written to a device whose buffer runs: the capture's own buffers
/// are off whenever it writes, so a running buffer is another program's, and its settings are that program's.
///
/// A refused write is taken as the driver means it and not retried: EINVAL (a value outside the driver's table)
/// keeps the driver's value and is logged once; EBUSY and a permission error are logged once with their cause.
/// Owned by the sensor thread.
final class SensorSettings {
    private struct Saved {
        var device: OpaquePointer
        var id: String
        var file: String
        var value: String
    }

    private var saved: [Saved] = []
    private var refused: Set<String> = []
    private let journal: SettingsJournal?

    /// Settings recorded in `journal` (none without one).
    init(journal: SettingsJournal?) {
        self.journal = journal
    }

    /// Records the current value of `file` of `device` (once), so that `restore` puts it back; for values that
    /// libiio changes itself (`buffer/length`, `buffer/watermark`, `buffer/enable`, the scan elements).
    func remember(_ device: OpaquePointer, _ id: String, _ file: String) {
        guard !saved.contains(where: { $0.id == id && $0.file == file }),
              let text = try? TextFile.read(SensorError.sysfsPath(id, file)) else { return }
        let value = String(text.trimmedSysfs)
        journal?.record(SettingsJournal.Entry(id: id, name: IIOContext.name(of: device) ?? id, file: file, value: value))
        saved.append(Saved(device: device, id: id, file: file, value: value))
    }

    /// The value `file` of device `id` held when it was first remembered, or nil when it was not.
    func original(_ id: String, _ file: String) -> String? {
        saved.first { $0.id == id && $0.file == file }?.value
    }

    /// Whether the buffer of device `id` runs: while this capture writes, its own never does.
    static func bufferRuns(_ id: String) -> Bool {
        DeviceFiles(id: id, names: []).read("buffer/enable") == "1"
    }

    /// Writes `value` to `file` of `device`, remembering what it held; returns whether the driver took it.
    ///
    /// `purpose` finishes the message of a refusal ("keeping the driver's sampling frequency").
    @discardableResult
    func write(_ device: OpaquePointer, _ id: String, _ file: String, _ value: String, purpose: String) -> Bool {
        let key = "\(id)/\(file)=\(value)"
        if refused.contains(key) { return false }
        if SensorSettings.bufferRuns(id) {
            Log.once(.info, "\(id): not writing \(file): another program's buffer runs on the device (\(SensorError.sysfsPath(id, "buffer/enable")) reads 1), and its settings are that program's; \(purpose)")
            return false
        }
        remember(device, id, file)
        guard let failure = IIOContext.writeDevice(device, file, value) else { return true }
        refused.insert(key)
        let path = SensorError.sysfsPath(id, file)
        let err = SystemError(operation: "write \(value) to", path: path, errno: failure, fix: SensorError.sysfsFix(failure))
        switch failure {
        case .invalidArgument:
            Log.once(.warning, "\(err): the driver does not take this value; \(purpose)")
        case .busy:
            Log.once(.warning, "\(err): the device is busy (its driver claims it for a buffer or an event that runs); \(purpose)")
        default:
            Log.once(err.errno.isPermission ? .error : .warning, "\(err); \(purpose)")
        }
        return false
    }

    /// Writes back every value that changed, in the order they were first recorded (so `buffer/length` goes
    /// back before `buffer/watermark`, which must not exceed it), then forgets the journal. Call with every
    /// buffer of the capture disabled; a device whose buffer another program has enabled meanwhile is left as it
    /// is (logged), as its settings are now that program's.
    func restore() {
        for s in saved {
            guard let now = try? TextFile.read(SensorError.sysfsPath(s.id, s.file)), now.trimmedSysfs != s.value else { continue }
            if SensorSettings.bufferRuns(s.id) {
                Log.once(.warning, "\(s.id): \(s.file) not put back to \"\(s.value)\": another program enabled the device's buffer meanwhile, and nothing is written while it runs")
                continue
            }
            if let failure = IIOContext.writeDevice(s.device, s.file, s.value) {
                let err = SystemError(operation: "put back \"\(s.value)\" to", path: SensorError.sysfsPath(s.id, s.file),
                                      errno: failure, fix: SensorError.sysfsFix(failure))
                Log.once(.warning, "\(err)")
            }
        }
        saved.removeAll()
        journal?.clear()
    }

    /// Puts back what the process `pid` recorded in its journal and did not put back (it crashed or was killed):
    /// first the buffers it enabled (nothing else can be written while they run), then the events it enabled,
    /// then the rest in the order recorded. Only on the device it changed (same id and name), only where the
    /// value still differs, and a buffer only while nobody holds its node (another program reading it now owns it).
    static func putBack(_ entries: [SettingsJournal.Entry], from pid: Int32, context ctx: IIOContext) {
        func rank(_ e: SettingsJournal.Entry) -> Int {
            e.file == "buffer/enable" ? 0 : e.file.hasPrefix("events/") && e.file.hasSuffix("_en") ? 1 : 2
        }
        var seen: Set<String> = [], done: [String] = []
        for e in entries.enumerated().sorted(by: { (rank($0.1), $0.0) < (rank($1.1), $1.0) }).map(\.1) {
            guard seen.insert("\(e.id)/\(e.file)").inserted, let dev = ctx.device(id: e.id), IIOContext.name(of: dev) == e.name,
                  let now = DeviceFiles(id: e.id, names: []).read(e.file), now != e.value else { continue }
            if e.file == "buffer/enable" {
                let fd = Glibc.open("/dev/\(e.id)", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
                guard fd >= 0 else {
                    Log.once(.info, "\(e.id): left its buffer enabled: rotationd (process \(pid)) enabled it and ended without disabling it, but another program now holds /dev/\(e.id)")
                    continue
                }
                Glibc.close(fd)
            }
            if let failure = IIOContext.writeDevice(dev, e.file, e.value) {
                let err = SystemError(operation: "put back \"\(e.value)\" to", path: SensorError.sysfsPath(e.id, e.file),
                                      errno: failure, fix: SensorError.sysfsFix(failure))
                Log.once(.warning, "\(err)")
            } else {
                done.append("\(e.id) \(e.file) \(now) -> \(e.value)")
            }
        }
        if !done.isEmpty {
            Log.write(.info, "put back what rotationd (process \(pid)) changed and did not put back before it ended: \(done.joined(separator: ", "))")
        }
    }
}
