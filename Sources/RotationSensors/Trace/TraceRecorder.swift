import Glibc
import RotationEngine
import RotationProtocol
import RotationSystem

/// Writes calibrated samples to a file in the shared trace format, so `--replay` can play them back.
///
/// The header is written once the first `headerWait` seconds of samples are in (or at `finish()`): `t,x,y,z`,
/// then a column group for each kind of reading any of them carries (`gx,gy,gz` for a gyroscope, `bx,by,bz` for a
/// convertible's base, `hinge`, the switches: `TraceColumns`). Those readings come less often than samples, and
/// the first may fail (a hinge sensor that cannot tell yet), so the first sample alone would drop their column
/// from the whole recording. A later sample without one of them gets empty fields there. When a write fails (a full disk), recording stops with
/// one error, and the file is cut back to its last whole line, so that it still replays. Not thread-safe: call it from the thread that delivers
/// samples.
public final class TraceRecorder: @unchecked Sendable {
    private let out: OutputStreamFD
    /// The file written to.
    public let path: String
    private var columns: TraceColumns?
    /// The samples taken before the header is written.
    private var held: [Sample] = []
    private var failed = false
    /// The bytes of whole lines written so far, and the samples they hold.
    private var complete: off_t = 0
    private var recorded = 0

    /// Creates or truncates `path`.
    public init(path: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = Errno.current
            let fix: String? = switch e {
            case .permissionDenied, .notPermitted, .readOnlyFileSystem: "choose a file in a directory you may write to"
            case .noSuchFileOrDirectory: "create its directory first"
            default: nil
            }
            throw SystemError(operation: "create", path: path, errno: e, fix: fix)
        }
        self.path = path
        out = OutputStreamFD(fd: fd)
    }

    deinit { close(out.fd) }

    /// How long the first samples are held to learn the columns, s of the samples' own time: five of the base's
    /// and a hinge sensor's reads (`BaseSensor.interval`).
    public static let headerWait = 0.5

    /// Appends one sample (the first ones once the header is known).
    public func record(_ sample: Sample) {
        guard !failed else { return }
        guard let columns else {
            held.append(sample)
            if sample.time - held[0].time >= TraceRecorder.headerWait { finish() }
            return
        }
        write(TraceFormat.line(for: sample, columns: columns) + "\n", samples: 1)
    }

    /// Writes the header and the samples held for it, if not done yet: call when recording ends.
    public func finish() {
        guard columns == nil, !held.isEmpty, !failed else { return }
        var columns = TraceColumns()
        for s in held { columns.formUnion(TraceColumns(of: s)) }
        self.columns = columns
        var text = TraceFormat.header(columns) + "\n"
        for s in held { text += TraceFormat.line(for: s, columns: columns) + "\n" }
        let count = held.count
        held = []
        write(text, samples: count)
    }

    /// Appends whole lines holding `samples` samples; on a failed write, stops recording with one error.
    private func write(_ text: String, samples: Int) {
        if out.write(text) {
            complete += off_t(text.utf8.count)
            recorded += samples
        } else {
            let e = Errno.current
            failed = true
            // A line cut short would make the whole trace unreadable.
            _ = ftruncate(out.fd, complete)
            Log.write(.error, "\(SystemError(operation: "write", path: path, errno: e)); recording stopped: "
                + "the file keeps the \(recorded) samples recorded before")
        }
    }
}
