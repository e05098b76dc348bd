import Glibc
import RotationProtocol
import Synchronization
import RotationSystem

/// Prints every state change as one JSON line on a file descriptor (standard output by default).
///
/// Two ways to wait for the reader:
/// - `.complete` writes on the publishing thread and waits for the reader, so every line arrives: a
///   replay into a scoring script or a file.
/// - `.bounded` hands lines to a writer thread of its own through a queue of `queueLimit` lines; when the
///   reader falls that far behind, the oldest lines are dropped and counted in the log, so the publishing
///   thread (and the socket clients behind it) never waits for a stalled terminal or pipe.
///
/// A failed write (a full disk, a closed pipe) ends printing: it is logged once, later lines are
/// discarded, and `failure` says why, so the caller can exit non-zero instead of passing a partial
/// output off as whole.
public final class StandardOutputPrinter: PublisherOutput, @unchecked Sendable {
    /// How publishing waits for the reader.
    public enum Mode: Sendable {
        /// Every line is written before `publish` returns.
        case complete
        /// `publish` only queues; at most this many lines wait, the oldest are dropped beyond that.
        case bounded(queueLimit: Int)
    }

    private struct Queue {
        var lines: [String] = []
        var dropped = 0
        var closed = false
    }

    private let fd: Int32
    private let mode: Mode
    private let error = Mutex<Errno?>(nil)
    private let queue = Mutex(Queue())
    private let ready = WakeSignal()
    private let writerDone = Atomic<Bool>(false)
    private var thread: SystemThread?

    private let onFailure: (@Sendable () -> Void)?

    /// Prints to `fd`, which the caller keeps open; `onFailure` runs once, on the writing thread, when a
    /// write fails, so a caller with nothing else to do can stop.
    public init(fd: Int32 = 1, mode: Mode = .complete, onFailure: (@Sendable () -> Void)? = nil) {
        self.fd = fd
        self.mode = mode
        self.onFailure = onFailure
        if case .bounded = mode {
            thread = SystemThread.start { [self] in self.writerLoop() }
        }
    }

    /// Why printing stopped (for instance "No space left on device"), or nil while every line was written.
    public var failure: String? { error.withLock { $0 }.map(\.description) }

    /// Writes, or queues, the event's line.
    public func publish(_ event: StateEvent) {
        let line = event.jsonLine + "\n"
        switch mode {
        case .complete:
            write(line)
        case .bounded(let limit):
            queue.withLock { q in
                guard !q.closed else { return }
                q.lines.append(line)
                if q.lines.count > limit {
                    let excess = q.lines.count - limit
                    q.lines.removeFirst(excess)
                    q.dropped += excess
                }
            }
            ready.signal()
        }
    }

    /// Writes what is queued and stops the writer thread. A reader that takes nothing for a second is
    /// not waited for any longer: the rest is dropped (and logged) so that shutdown cannot hang on it.
    public func close() {
        guard let thread else { return }
        self.thread = nil
        queue.withLock { $0.closed = true }
        ready.signal()
        var waited = 0
        while !writerDone.load(ordering: .acquiring) && waited < 100 {
            usleep(10_000)
            waited += 1
        }
        if writerDone.load(ordering: .acquiring) {
            thread.join()
        } else {
            Log.warning("standard output is not being read; the last state lines were not printed")
        }
    }

    private func writerLoop() {
        while true {
            ready.wait()
            let (lines, dropped, closed) = queue.withLock { q -> ([String], Int, Bool) in
                let taken = (q.lines, q.dropped, q.closed)
                q.lines.removeAll(keepingCapacity: true)
                q.dropped = 0
                return taken
            }
            if dropped > 0 {
                Log.warning("standard output is not being read fast enough: dropped \(dropped) state line\(dropped == 1 ? "" : "s") (socket clients are not affected)")
            }
            for line in lines { write(line) }
            if closed && queue.withLock({ $0.lines.isEmpty }) {
                writerDone.store(true, ordering: .releasing)
                return
            }
        }
    }

    private func write(_ text: String) {
        guard error.withLock({ $0 }) == nil else { return }
        var line = text
        line.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 {
                    let e = errno
                    if e == EINTR { continue }
                    if e == EAGAIN || e == EWOULDBLOCK {
                        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&p, 1, -1)
                        continue
                    }
                    error.withLock { $0 = Errno(rawValue: e) }
                    Log.error("cannot write to standard output: \(Errno(rawValue: e)); nothing more is printed")
                    onFailure?()
                    return
                }
                off += n
            }
        }
    }
}
