import Glibc
import CIIO
import RotationSystem

/// Owns one libiio local context and wraps the calls on its devices and channels that can fail.
///
/// Every libiio pointer handed out stays valid only while this object lives. Not thread-safe: one thread
/// owns a context.
final class IIOContext {
    let raw: OpaquePointer

    /// Builds a snapshot of `/sys/bus/iio/devices` with the given read timeout.
    init(timeoutMilliseconds: UInt32) throws(SensorError) {
        guard let ctx = iio_create_local_context() else { throw .context(errno: .current) }
        raw = ctx
        _ = iio_context_set_timeout(ctx, timeoutMilliseconds)
    }

    deinit { iio_context_destroy(raw) }

    /// Sets how long a buffer refill may wait.
    func setTimeout(milliseconds: UInt32) { _ = iio_context_set_timeout(raw, milliseconds) }

    /// Every device and trigger, in the order libiio lists them.
    var devices: [OpaquePointer] {
        (0..<iio_context_get_devices_count(raw)).compactMap { iio_context_get_device(raw, UInt32($0)) }
    }

    /// The device with id `id` (such as `iio:device0`).
    func device(id: String) -> OpaquePointer? {
        devices.first { IIOContext.id(of: $0) == id }
    }

    static func id(of dev: OpaquePointer) -> String { String(cString: iio_device_get_id(dev)) }
    static func name(of dev: OpaquePointer) -> String? { iio_device_get_name(dev).map { String(cString: $0) } }
    static func label(of dev: OpaquePointer) -> String? { iio_device_get_label(dev).map { String(cString: $0) } }
    static func channelID(_ ch: OpaquePointer) -> String { String(cString: iio_channel_get_id(ch)) }

    static func channels(of dev: OpaquePointer) -> [OpaquePointer] {
        (0..<iio_device_get_channels_count(dev)).compactMap { iio_device_get_channel(dev, UInt32($0)) }
    }

    static func inputChannel(_ dev: OpaquePointer, _ id: String) -> OpaquePointer? {
        iio_device_find_channel(dev, id, false)
    }

    /// Reads into a stack buffer; returns the text, or the error number, turned into a `SensorError` once the path is
    /// known.
    private static func read(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int) -> Result<String, Errno> {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buf -> Result<String, Errno> in
            let n = body(buf.baseAddress!, buf.count)
            if n < 0 { return .failure(Errno(rawValue: Int32(-n))) }
            buf[min(n, buf.count - 1)] = 0
            return .success(String(cString: buf.baseAddress!))
        }
    }

    /// Whether the device has attribute `name`.
    static func hasDeviceAttribute(_ dev: OpaquePointer, _ name: String) -> Bool {
        iio_device_find_attr(dev, name) != nil
    }

    /// Whether the channel has attribute `name`.
    static func hasChannelAttribute(_ ch: OpaquePointer, _ name: String) -> Bool {
        iio_channel_find_attr(ch, name) != nil
    }

    /// The file name behind channel attribute `name` (such as `in_accel_x_scale` for `scale`).
    static func channelAttributeFile(_ ch: OpaquePointer, _ name: String) -> String? {
        iio_channel_attr_get_filename(ch, name).map { String(cString: $0) }
    }

    static func readDevice(_ dev: OpaquePointer, _ name: String) -> Result<String, Errno> {
        read { iio_device_attr_read(dev, name, $0, $1) }
    }

    static func readChannel(_ ch: OpaquePointer, _ name: String) -> Result<String, Errno> {
        read { iio_channel_attr_read(ch, name, $0, $1) }
    }

    static func readBuffer(_ dev: OpaquePointer, _ name: String) -> Result<String, Errno> {
        read { iio_device_buffer_attr_read(dev, name, $0, $1) }
    }

    /// Writes a device attribute; returns the error number on failure.
    static func writeDevice(_ dev: OpaquePointer, _ name: String, _ value: String) -> Errno? {
        let n = iio_device_attr_write(dev, name, value)
        return n < 0 ? Errno(rawValue: Int32(-n)) : nil
    }

    static func writeChannel(_ ch: OpaquePointer, _ name: String, _ value: String) -> Errno? {
        let n = iio_channel_attr_write(ch, name, value)
        return n < 0 ? Errno(rawValue: Int32(-n)) : nil
    }

    static func writeBuffer(_ dev: OpaquePointer, _ name: String, _ value: String) -> Errno? {
        let n = iio_device_buffer_attr_write(dev, name, value)
        return n < 0 ? Errno(rawValue: Int32(-n)) : nil
    }

    /// Whether the device's directory is still in sysfs.
    static func isPresent(_ id: String) -> Bool {
        access(SensorError.sysfsPath(id, "name"), F_OK) == 0 || access("/sys/bus/iio/devices/\(id)", F_OK) == 0
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line ends.
    var trimmedSysfs: Substring {
        var s = self[...]
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\0" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\0" { s = s.dropLast() }
        return s
    }
}
