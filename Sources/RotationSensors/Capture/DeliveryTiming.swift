/// When the sample being delivered passed each stage of the capture, on CLOCK_MONOTONIC: the live path's
/// stages before the engine, for a latency budget (`rotationd --verbose` logs them with each change).
///
/// The stages follow one sample: the sensor measured it (`measured`), the kernel let it be read (`readable`: a
/// buffered sample waits for the batch it belongs to), the sensor thread woke for it (`woke`), the read
/// returned (`read`), and the decoded sample went to the source's owner (`delivered`). A polled sample is
/// measured and readable when its read was due, so its wake-up is the timer's lateness and its read the time
/// the driver took.
public struct DeliveryTiming: Sendable, Equatable {
    /// When the sensor measured the sample: its buffer timestamp, or the time its raw read was due.
    public var measured: Double
    /// When the kernel let it be read: the timestamp of the last scan of its batch (the one that filled it).
    public var readable: Double
    /// When the sensor thread woke to read it.
    public var woke: Double
    /// When its read returned.
    public var read: Double
    /// When it was handed to the owner, decoded and calibrated.
    public var delivered: Double

    /// Creates a timing with every stage at `time`.
    public init(at time: Double) {
        measured = time
        readable = time
        woke = time
        read = time
        delivered = time
    }

    /// The stages of a polled read due at `due`, begun at `woke`, returned at `read`.
    static func polled(due: Double, woke: Double, read: Double) -> DeliveryTiming {
        var t = DeliveryTiming(at: min(due, woke))
        t.woke = woke
        t.read = read
        t.delivered = read
        return t
    }
}
