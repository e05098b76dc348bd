import Glibc
import RotationProtocol
import RotationSystem

/// One connected client as the server's event loop sees it: its subscription, its partial input line and
/// its bounded output queue. Used only on the event loop's thread.
final class ClientConnection {
    /// What a queued line is, which decides how it may be coalesced.
    enum Kind {
        /// A published change; unsent ones are coalesced into the latest when the backlog is full.
        case state
        /// A raw sample; an unsent backlog is dropped when full.
        case sample
        /// A reply to a command; never dropped, but counted against the byte limit.
        case reply
    }

    /// One encoded line waiting to be written.
    struct Outgoing {
        var bytes: [UInt8]
        var kind: Kind
        var missed: Int
        /// The number of the stored change this line must wait for (`PreferenceStore`), or 0.
        var gate: UInt64 = 0
    }

    /// The outcome of trying to write the queue.
    enum FlushResult {
        /// Everything queued was written.
        case drained
        /// The socket is full; wait for it to become writable.
        case blocked
        /// The next line waits for a stored change to reach the disk; the store's notice flushes it.
        case gated
        /// The peer is gone or the socket failed.
        case failed(Errno)
    }

    /// The connection's descriptor.
    let fd: Int32
    /// The event-loop key of this connection.
    let id: UInt64
    /// The peer's process id, for log messages (0 when unknown).
    let pid: Int32
    /// Whether the peer may subscribe to raw samples.
    let samplesAllowed: Bool
    /// The peer's user (SO_PEERCRED), whose preferred camera it sees and may change; nil when the kernel did not say.
    let uid: UInt32?
    /// The event types the client receives.
    var events: [EventType] = EventType.defaults
    /// Bytes of a command line received so far, without its newline.
    var input: [UInt8] = []
    /// True once the peer shut down its sending side; it may still read.
    var inputClosed = false
    /// Whether EPOLLOUT is currently requested for this descriptor.
    var wantsWritable = false
    /// Since when queued output has made no progress, or nil while it drains.
    var stalledSince: Double?
    private var queue: [Outgoing] = []
    private var head = 0
    private var offset = 0
    private(set) var queuedBytes = 0
    private var tokens: Double
    private var lastRefill: Double

    init(fd: Int32, id: UInt64, pid: Int32, uid: UInt32?, samplesAllowed: Bool, burst: Double, now: Double) {
        self.fd = fd
        self.id = id
        self.pid = pid
        self.uid = uid
        self.samplesAllowed = samplesAllowed
        self.tokens = burst
        self.lastRefill = now
    }

    /// Whether anything is waiting to be written.
    var hasPending: Bool { head < queue.count }

    /// Whether a line has been partly written (so nothing may be written out of turn).
    var midLine: Bool { offset > 0 }

    private func append(_ o: Outgoing) {
        if head > 32 {
            queue.removeFirst(head)
            head = 0
        }
        queue.append(o)
        queuedBytes += o.bytes.count
    }

    /// Removes unsent entries of `kind` (the partly written head is kept); returns the sum of 1 + missed over them.
    private func dropUnsent(_ kind: Kind) -> Int {
        let first = head + (offset > 0 ? 1 : 0)
        var missed = 0
        var kept: [Outgoing] = []
        kept.reserveCapacity(queue.count - head)
        for i in head..<queue.count {
            let o = queue[i]
            if i >= first && o.kind == kind {
                missed += 1 + o.missed
                queuedBytes -= o.bytes.count
            } else {
                kept.append(o)
            }
        }
        queue = kept
        head = 0
        return missed
    }

    private func unsentCount(_ kind: Kind) -> Int {
        let first = head + (offset > 0 ? 1 : 0)
        var n = 0
        var i = first
        while i < queue.count {
            if queue[i].kind == kind { n += 1 }
            i += 1
        }
        return n
    }

    /// Queues a change. With `backlog` unsent changes already queued, they are replaced by this one,
    /// which then says how many the client missed.
    func enqueueState(_ event: StateEvent, line: [UInt8], backlog: Int) {
        if unsentCount(.state) >= backlog {
            var e = event
            e.missed = dropUnsent(.state)
            append(Outgoing(bytes: Array((e.jsonLine + "\n").utf8), kind: .state, missed: e.missed))
        } else {
            append(Outgoing(bytes: line, kind: .state, missed: 0))
        }
    }

    /// Queues a raw sample. With `backlog` unsent samples already queued they are dropped, and this one
    /// says how many the client missed.
    func enqueueSample(_ sample: Sample, line: [UInt8], backlog: Int) {
        if unsentCount(.sample) >= backlog {
            let missed = dropUnsent(.sample)
            let m = SampleMessage(sample: sample, missed: missed)
            append(Outgoing(bytes: Array((m.jsonLine + "\n").utf8), kind: .sample, missed: missed))
        } else {
            append(Outgoing(bytes: line, kind: .sample, missed: 0))
        }
    }

    /// Queues a reply line (given without its newline); with a `gate`, it and everything after it wait until the
    /// stored change of that number is on disk.
    func enqueueReply(_ text: String, gate: UInt64 = 0) {
        append(Outgoing(bytes: Array((text + "\n").utf8), kind: .reply, missed: 0, gate: gate))
    }

    /// Whether a queued line waits for a stored change.
    var isGated: Bool { queue[head...].contains { $0.gate != 0 } }

    /// Whether a queued line waits for a stored change later than `durable`.
    func waitsForDisk(durable: UInt64) -> Bool { queue[head...].contains { $0.gate > durable } }

    /// Takes one command token; false when the client has exceeded its rate.
    func admitCommand(now: Double, rate: Double, burst: Double) -> Bool {
        tokens = min(burst, tokens + (now - lastRefill) * rate)
        lastRefill = now
        tokens -= 1
        return tokens >= 0
    }

    /// Writes as much of the queue as the socket takes without blocking, up to a line that waits for a stored
    /// change later than `durable`.
    func flush(now: Double, durable: UInt64 = .max) -> FlushResult {
        var progressed = false
        var gated = false
        defer {
            if !hasPending || gated {
                stalledSince = nil
            } else if progressed || stalledSince == nil {
                stalledSince = now
            }
        }
        while head < queue.count {
            if offset == 0 && queue[head].gate > durable {
                gated = true
                return .gated
            }
            let n = queue[head].bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return .blocked }
                return .failed(Errno(rawValue: e))
            }
            progressed = true
            offset += n
            if offset == queue[head].bytes.count {
                queuedBytes -= queue[head].bytes.count
                offset = 0
                head += 1
            }
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 64)
        head = 0
        return .drained
    }
}
