import Glibc
import RotationEngine

/// Prints every state change as one JSON line on a file descriptor (standard output by default).
///
/// It writes on the input thread and may block if the reader stalls, which suits a pipe into a scoring
/// script or a terminal; network subscribers go through `SocketServer` instead.
public final class StandardOutputPrinter: PublisherOutput, @unchecked Sendable {
    private let fd: Int32

    /// Prints to `fd`, which the caller keeps open.
    public init(fd: Int32 = 1) { self.fd = fd }

    /// Writes the event's line.
    public func publish(_ event: StateEvent) {
        var line = event.jsonLine
        line += "\n"
        line.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
    }
}
