import Glibc
import CIIOEvents
import RotationSystem

/// The event descriptor of one IIO device: what `IIO_GET_EVENT_FD_IOCTL` on `/dev/iio:deviceN` hands out, and the
/// events read from it.
///
/// The kernel queues events only while a descriptor is open and gives out one per device at a time (EBUSY for a
/// second, `iio_event_getfd` in drivers/iio/industrialio-event.c), so a capture holds it from start to end.
/// Each record is a `struct iio_event_data`, 16 bytes: the event code (`IIO_EVENT_CODE_EXTRACT_*`) and a
/// timestamp on the device's `current_timestamp_clock`. Owned by the sensor thread.
final class MotionEventStream {
    /// One decoded event.
    struct Event: Sendable, Hashable {
        /// The channel type (`enum iio_chan_type`): `IIO_ACCEL` for motion.
        var channelType: UInt32
        /// The event type (`enum iio_event_type`).
        var type: UInt32
        /// The direction (`enum iio_event_direction`).
        var direction: UInt32
        /// The modifier (`enum iio_modifier`): the axis, or `IIO_MOD_X_OR_Y_OR_Z`.
        var modifier: UInt32
        /// The timestamp in ns, on the device's timestamp clock (CLOCK_REALTIME unless changed).
        var timestamp: Int64
    }

    /// The IIO device id.
    let id: String
    /// The descriptor to poll: readable when an event waits.
    let fd: Int32

    /// Opens `/dev/<id>` and asks it for its event descriptor, which is made non-blocking; the node itself is
    /// closed again (the descriptor holds the device).
    init(device id: String) throws(SensorError) {
        self.id = id
        let node = open("/dev/\(id)", O_RDONLY | O_CLOEXEC)
        guard node >= 0 else { throw .events(device: id, operation: "open", errno: .current) }
        defer { close(node) }
        let fd = rotationd_iio_event_fd(node)
        guard fd >= 0 else { throw .events(device: id, operation: "get (IIO_GET_EVENT_FD_IOCTL)", errno: .current) }
        Descriptor.makeNonBlocking(fd)
        self.fd = fd
    }

    deinit { close(fd) }

    /// Every event waiting, in order; throws when the descriptor fails (the device went away: ENODEV).
    func drain() throws(SensorError) -> [Event] {
        var events: [Event] = []
        let size = Int(rotationd_iio_event_size)
        var buffer = [UInt8](repeating: 0, count: size * 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return events }
                throw .events(device: id, operation: "read", errno: .current)
            }
            if n == 0 { return events }
            buffer.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: n - size + 1, by: size) {
                    let e = rotationd_iio_event_decode(raw.baseAddress! + offset)
                    events.append(Event(channelType: e.channel_type, type: e.type, direction: e.direction,
                                        modifier: e.modifier, timestamp: e.timestamp))
                }
            }
            if n < buffer.count { return events }
        }
    }
}
