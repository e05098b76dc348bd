import Glibc
import RotationEngine
import RotationProtocol

/// Writes calibrated samples to a file in the shared trace format, so `--replay` can play them back.
///
/// The header is written with the first sample: `t,x,y,z`, then a column group for each kind of reading that
/// sample carries (`gx,gy,gz` for a gyroscope, `bx,by,bz` for a convertible's base, `TraceColumns`); a later
/// sample without one of them gets empty fields there. When a write fails (a full disk), recording stops with
/// one error, and the file is cut back to its last whole line, so that it still replays. Not thread-safe: call it from the thread that delivers
/// samples.
public final class TraceRecorder: @unchecked Sendable {
    private let out: OutputStreamFD
    /// The file written to.
    public let path: String
    private var columns: TraceColumns?
    private var failed = false
    /// The bytes of whole lines written so far, and the samples they hold.
    private var complete: off_t = 0
    private var recorded = 0

    /// Creates or truncates `path`.
    public init(path: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = errno
            let fix: String? = switch e {
            case EACCES, EPERM, EROFS: "choose a file in a directory you may write to"
            case ENOENT: "create its directory first"
            default: nil
            }
            throw SystemError(operation: "create", path: path, errno: e, fix: fix)
        }
        self.path = path
        out = OutputStreamFD(fd: fd)
    }

    deinit { close(out.fd) }

    /// Appends one sample (and the header before the first one).
    public func record(_ sample: Sample) {
        guard !failed else { return }
        var text = ""
        let columns = self.columns ?? TraceColumns(of: sample)
        if self.columns == nil {
            self.columns = columns
            text = TraceFormat.header(columns) + "\n"
        }
        text += TraceFormat.line(for: sample, columns: columns) + "\n"
        if out.write(text) {
            complete += off_t(text.utf8.count)
            recorded += 1
        } else {
            let e = errno
            failed = true
            // A line cut short would make the whole trace unreadable.
            _ = ftruncate(out.fd, complete)
            SensorLog.write(.error, "\(SystemError(operation: "write", path: path, errno: e)); recording stopped: "
                + "the file keeps the \(recorded) samples recorded before")
        }
    }
}
