import Glibc
import CIIO
import RotationSystem

/// One enabled libiio buffer of one IIO device: the channels it scans, where each sits in a scan and how it is
/// stored, and the descriptor that becomes readable when a batch is waiting.
///
/// Creating it enables the buffer (libiio writes `buffer/length`, `buffer/watermark` = the batch, the scan
/// elements and `buffer/enable`, all while the buffer is disabled, as the kernel requires); releasing it
/// disables the buffer. Owned by the sensor thread.
final class BufferStream {
    /// The IIO device id.
    let id: String
    /// Scans per refill: the watermark the kernel wakes the reader at.
    let batch: Int
    /// The descriptor to poll for a waiting batch.
    let fd: Int32
    let buffer: OpaquePointer
    private let values: [(format: ScanFormat, offset: Int)]
    private let timestamp: (format: ScanFormat, offset: Int)?
    private let step: Int
    /// CLOCK_MONOTONIC minus the device's timestamp clock, in seconds, as closely as batches have shown it; a
    /// capture that reopens the buffer carries it over.
    var clockOffset: Double?

    /// Enables the buffer of `dev` with `channels` (and `timestamp`, when given) for batches of `batch` scans.
    ///
    /// Every other scan element is disabled first. The formats come from each channel's
    /// `scan_elements/in_<channel>_type`, the offsets from libiio's layout of the scan.
    ///
    /// A stream that is not `blocking` returns at once from `refill` with whatever scans are waiting, none
    /// included.
    init(device dev: OpaquePointer, files: DeviceFiles, channels: [OpaquePointer], timestamp: OpaquePointer?,
         batch: Int, blocking: Bool = true) throws(Errno) {
        id = files.id
        for ch in IIOContext.channels(of: dev) where iio_channel_is_scan_element(ch) { iio_channel_disable(ch) }
        for ch in channels { iio_channel_enable(ch) }
        if let timestamp { iio_channel_enable(timestamp) }
        func format(_ ch: OpaquePointer) -> ScanFormat? {
            files.read("scan_elements/in_\(IIOContext.channelID(ch))_type").flatMap { ScanFormat(parsing: $0) }
        }
        let formats = channels.map(format)
        guard formats.allSatisfy({ $0 != nil }) else { throw .invalidArgument }
        // libiio 0.24 prints "WARNING: High-speed mode not enabled" on standard error here on mainline kernels: it
        // only means the buffer is read with read() rather than mmap().
        guard let buf = iio_device_create_buffer(dev, batch, false) else { throw .current }
        buffer = buf
        self.batch = batch
        if !blocking { _ = iio_buffer_set_blocking_mode(buf, false) }
        fd = iio_buffer_get_poll_fd(buf)
        step = iio_buffer_step(buf)
        let base = Int(bitPattern: iio_buffer_start(buf))
        values = zip(formats, channels).map { ($0!, Int(bitPattern: iio_buffer_first(buf, $1)) - base) }
        if let timestamp, let f = format(timestamp) {
            self.timestamp = (f, Int(bitPattern: iio_buffer_first(buf, timestamp)) - base)
        } else {
            self.timestamp = nil
        }
    }

    deinit { iio_buffer_destroy(buffer) }

    /// Reads the waiting batch; the bytes read, or the negative errno.
    func refill() -> Int { iio_buffer_refill(buffer) }

    /// The CLOCK_MONOTONIC time of each scan of the last refill of `bytes` bytes, read at `now`.
    ///
    /// With a timestamp channel, a scan's time is its timestamp moved to CLOCK_MONOTONIC, whatever clock the
    /// device stamps with (`current_timestamp_clock`): by the smallest difference between a read and the last
    /// scan it returned seen so far, since a batch is read after its last scan was taken, never before; a
    /// batch that waited in the buffer (a gyroscope drained with the accelerometer's batches) keeps its own
    /// times. A difference more than a second above that is a step of the device's clock (a realtime clock set
    /// by NTP) and is taken as the new one. Without timestamps, scans are spaced at `hz` back from the read.
    func times(bytes: Int, hz: Double, now: Double) -> [Double] {
        var stamps: [Int64?] = []
        forEachScan(bytes: bytes) { _, _, _, stamp in stamps.append(stamp) }
        guard let lastStamp = stamps.last ?? nil else {
            return stamps.indices.map { now - Double(stamps.count - 1 - $0) / hz }
        }
        let candidate = now - Double(lastStamp) * 1e-9
        if let offset = clockOffset, candidate >= offset, candidate <= offset + 1 {} else {
            clockOffset = candidate
        }
        let offset = clockOffset!
        return stamps.enumerated().map { i, stamp in
            stamp.map { Double($0) * 1e-9 + offset } ?? now - Double(stamps.count - 1 - i) / hz
        }
    }

    /// Calls `body` for each complete scan of the last refill of `bytes` bytes, in order, with the scan's
    /// values (counts, in channel order) and its timestamp in ns when the scan has one.
    func forEachScan(bytes: Int, _ body: (_ index: Int, _ count: Int, _ values: [Double], _ stamp: Int64?) -> Void) {
        guard step > 0, let start = iio_buffer_start(buffer) else { return }
        let count = bytes / step
        let data = UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: count * step)
        var row = [Double](repeating: 0, count: values.count)
        for i in 0..<count {
            let base = i * step
            for (k, v) in values.enumerated() {
                row[k] = v.format.value(in: data, at: base + v.offset).map(Double.init) ?? .nan
            }
            body(i, count, row, timestamp.flatMap { $0.format.value(in: data, at: base + $0.offset) })
        }
    }
}
