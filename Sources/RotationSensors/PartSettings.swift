import Glibc
import CIIO

/// The attributes a capture changes on its devices, written through libiio, and put back as they were found
/// when the capture ends, however it ends: a part must never be left at a rate, a batch size or a trigger
/// nobody asked it for.
///
/// A refused write is taken as the driver means it and not retried: EINVAL (a value outside the driver's table)
/// keeps the driver's value and is logged once; EBUSY (the buffer runs, so another program is capturing) and
/// a permission error are logged once with their cause. Owned by the sensor thread.
final class PartSettings {
    private struct Saved {
        var device: OpaquePointer
        var id: String
        var file: String
        var value: String
    }

    private var saved: [Saved] = []
    private var refused: Set<String> = []

    /// Records the current value of `file` of `device` (once), so that `restore` puts it back; for values that
    /// libiio changes itself (`buffer/length`, `buffer/watermark`).
    func remember(_ device: OpaquePointer, _ id: String, _ file: String) {
        guard !saved.contains(where: { $0.id == id && $0.file == file }),
              let text = try? TextFile.read(SensorError.sysfsPath(id, file)) else { return }
        saved.append(Saved(device: device, id: id, file: file, value: String(text.trimmedSysfs)))
    }

    /// Writes `value` to `file` of `device`, remembering what it held; returns whether the driver took it.
    ///
    /// `purpose` finishes the message of a refusal ("keeping the driver's sampling frequency").
    @discardableResult
    func write(_ device: OpaquePointer, _ id: String, _ file: String, _ value: String, purpose: String) -> Bool {
        let key = "\(id)/\(file)=\(value)"
        if refused.contains(key) { return false }
        remember(device, id, file)
        guard let failure = IIOContext.writeDevice(device, file, value) else { return true }
        refused.insert(key)
        let path = SensorError.sysfsPath(id, file)
        let err = SystemError(operation: "write \(value) to", path: path, errno: failure.code, fix: SensorError.sysfsFix(failure.code))
        switch failure.code {
        case EINVAL:
            SensorLog.once(.warning, "\(err): the driver does not take this value; \(purpose)")
        case EBUSY:
            SensorLog.once(.warning, "\(err): the device's buffer is running, so another program is capturing from it (is iio-sensor-proxy running?); \(purpose)")
        default:
            SensorLog.once(err.errno == EACCES || err.errno == EPERM ? .error : .warning, "\(err); \(purpose)")
        }
        return false
    }

    /// Writes back every value that changed, in the order they were first recorded (so `buffer/length` goes
    /// back before `buffer/watermark`, which must not exceed it). Call with every buffer disabled.
    func restore() {
        for s in saved {
            guard let now = try? TextFile.read(SensorError.sysfsPath(s.id, s.file)), now.trimmedSysfs != s.value else { continue }
            if let failure = IIOContext.writeDevice(s.device, s.file, s.value) {
                let err = SystemError(operation: "put back \"\(s.value)\" to", path: SensorError.sysfsPath(s.id, s.file),
                                      errno: failure.code, fix: SensorError.sysfsFix(failure.code))
                SensorLog.once(.warning, "\(err)")
            }
        }
        saved.removeAll()
    }
}
