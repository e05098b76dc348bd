import Glibc
import RotationEngine

/// Writes calibrated samples to a file in the shared trace format, so `--replay` can play them back.
///
/// The header is written with the first sample: `t,x,y,z,gx,gy,gz` when that sample has a gyroscope reading,
/// else `t,x,y,z`. Not thread-safe: call it from the thread that delivers samples.
public final class TraceRecorder: @unchecked Sendable {
    private let out: OutputStreamFD
    /// The file written to.
    public let path: String
    private var withGyro: Bool?
    private var failed = false

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
        if withGyro == nil {
            withGyro = sample.angularVelocity != nil
            text = TraceFormat.header(withGyro: withGyro!) + "\n"
        }
        text += TraceFormat.line(for: sample, withGyro: withGyro!) + "\n"
        if !out.write(text) {
            failed = true
            SensorLog.write(.error, "\(SystemError(operation: "write", path: path, errno: errno)); recording stopped")
        }
    }
}
