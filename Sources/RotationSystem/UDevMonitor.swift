import CUDev

/// Listens to udev for devices being added, changed or removed, in the subsystems (and device types) it matches.
///
/// Not thread-safe: one thread owns an instance.
public final class UDevMonitor {
    /// A subsystem to listen to, and within it one device type, or every one.
    public struct Match: Sendable, Hashable {
        /// The subsystem, such as "iio" or "input".
        public var subsystem: String
        /// The device type, such as "usb_device"; nil for every one.
        public var devtype: String?

        /// Matches `subsystem`'s devices of type `devtype`, or all of them.
        public init(_ subsystem: String, devtype: String? = nil) {
            self.subsystem = subsystem
            self.devtype = devtype
        }
    }

    /// One event, as udev announced it.
    public struct Event: Sendable, Hashable {
        /// "add", "change", "remove", "bind"...; empty when udev gave none.
        public var action: String
        /// The device's syspath; empty when udev gave none.
        public var syspath: String
        /// The device's subsystem.
        public var subsystem: String?
    }

    /// The udev library context, for the owner's own lookups on the same thread; nil when udev is unavailable.
    public let udev: OpaquePointer?
    private let monitor: OpaquePointer?

    /// Listens for the events of the devices that `matching` describes; `isListening` is false when udev cannot be
    /// listened to.
    public init(matching: [Match]) {
        udev = udev_new()
        var mon: OpaquePointer? = nil
        if let udev, let m = udev_monitor_new_from_netlink(udev, "udev") {
            if matching.allSatisfy({ udev_monitor_filter_add_match_subsystem_devtype(m, $0.subsystem, $0.devtype) >= 0 }),
               udev_monitor_enable_receiving(m) >= 0 {
                mon = m
            } else {
                udev_monitor_unref(m)
            }
        }
        monitor = mon
    }

    /// Listens for the events of `subsystem`'s devices.
    public convenience init(subsystem: String) {
        self.init(matching: [Match(subsystem)])
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        if let udev { udev_unref(udev) }
    }

    /// Whether events are received.
    public var isListening: Bool { monitor != nil }

    /// The descriptor that becomes readable when an event arrives, or −1 without a monitor.
    public var fileDescriptor: Int32 { monitor.map { udev_monitor_get_fd($0) } ?? -1 }

    /// The syspaths of the devices udev said were removed and has not added since: their files may linger while
    /// the event is handled, so a look at the devices leaves them out.
    public private(set) var removed = Set<String>()

    /// Reads every pending event, in order, keeping `removed`.
    @discardableResult
    public func receive() -> [Event] {
        guard let monitor else { return [] }
        var events: [Event] = []
        while let dev = udev_monitor_receive_device(monitor) {
            let path = udev_device_get_syspath(dev).map { String(cString: $0) }
            let action = udev_device_get_action(dev).map { String(cString: $0) } ?? ""
            if let path {
                if action == "remove" { removed.insert(path) } else { removed.remove(path) }
            }
            events.append(Event(action: action, syspath: path ?? "",
                                subsystem: udev_device_get_subsystem(dev).map { String(cString: $0) }))
            udev_device_unref(dev)
        }
        return events
    }
}
