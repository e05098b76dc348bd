import CInput
import Glibc
import RotationSystem

/// The tablet-mode and lid switches (`SwitchDescription`) read for the posture: each event node opened
/// read-only and non-blocking, its state taken once with `EVIOCGSW` and then kept from the events it reports.
///
/// Nothing is grabbed, so the compositor and libinput see every event as before. A capture polls `descriptor`
/// beside its own while it sleeps, so a switch that changes while the display is still is read at once
/// (`CapturedSensor.readSwitch`). A node that cannot be opened is logged once with the fix and left out; one that
/// goes away (ENODEV, or udev says it was removed) is closed, and one registered while the capture runs
/// (intel-vbtn registers its switch at the firmware's first switch event) is opened: udev's input events wake
/// the same descriptor, so that costs nothing while no device comes or goes. Owned by the sensor thread.
final class InputSwitches {
    private struct Opened {
        var switch_: SwitchDescription
        var fd: Int32
        /// The state of each switch it reports, by `SwitchDescription.Kind.rawValue`.
        var on: [Int: Bool] = [:]
    }

    /// `struct input_event`: a `struct timeval`, then type, code (16 bits each) and value (32 bits).
    private static let eventSize = MemoryLayout<input_event>.size

    private var opened: [Opened] = []
    /// udev's input events, in `poller` beside the nodes.
    private let monitor: UDevMonitor
    private let udev = UDevDatabase()
    private let poller: Int32
    /// Where events are read into, sixteen at a time.
    private var buffer = [UInt8](repeating: 0, count: eventSize * 16)
    /// The states in force, kept from the last events read (`refresh`).
    private var states: (tabletMode: Bool?, lidClosed: Bool?) = (nil, nil)

    /// Opens each of `switches`; those that cannot be opened are logged (once each) and left out. Listens to
    /// udev's input events from then on, so that a switch device registered later is read too.
    init(_ switches: [SwitchDescription]) {
        monitor = UDevMonitor(subsystem: "input")
        poller = rotationd_readiness_create()
        if poller >= 0, monitor.fileDescriptor >= 0 { _ = rotationd_readiness_add(poller, monitor.fileDescriptor) }
        for s in switches { add(s) }
        refresh()
    }

    deinit {
        for o in opened { close(o.fd) }
        if poller >= 0 { close(poller) }
    }

    /// Opens `s` and reads its state, or logs (once) why it cannot be read.
    private func add(_ s: SwitchDescription) {
        let fd = open(s.node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = Errno.current
            let fix = e.isPermission
                ? "the group rotationd reads a switch's node once udev has applied 60-rotationd.rules to it (udevadm trigger), or run as root"
                : nil
            let err = SystemError(operation: "open", path: s.node, errno: e, fix: fix)
            Log.once(.warning, "\(err); the \(s.reported) of \(s.name) is not read for the posture")
            return
        }
        var o = Opened(switch_: s, fd: fd)
        InputSwitches.sync(&o)
        opened.append(o)
        if poller >= 0 { _ = rotationd_readiness_add(poller, fd) }
    }

    /// Closes the switch at `index`, saying why it is no longer read.
    private func remove(at index: Int, _ why: String) {
        let gone = opened.remove(at: index)
        Log.write(.info, "\(gone.switch_.node) (\(gone.switch_.name)) \(why): its switches are no longer read")
        if poller >= 0 { _ = rotationd_readiness_remove(poller, gone.fd) }
        close(gone.fd)
    }

    /// Follows udev's input events: the devices said removed count as gone (their files may linger while the
    /// event is handled), and the switches listed afterwards are those read; a new one is opened and said.
    private func followHotPlug() {
        guard !monitor.receive().isEmpty else { return }
        let listed = udev.switches(leavingOut: monitor.removed)
        var i = 0
        while i < opened.count {
            if listed.contains(where: { $0.node == opened[i].switch_.node }) { i += 1 } else { remove(at: i, "was removed") }
        }
        for s in listed where !opened.contains(where: { $0.switch_.node == s.node }) {
            let before = opened.count
            add(s)
            if opened.count > before {
                Log.write(.info, "\(s.node) (\(s.name)) appeared: its \(s.reported) is read for the posture")
            }
        }
    }

    /// The descriptors opened, by node, for the "using" line and tests.
    var nodes: [String] { opened.map(\.switch_.node) }

    /// Readable when a switch has reported something not read yet or an input device came or went: an epoll
    /// descriptor over the nodes and udev's input events, or −1 when none could be made.
    var descriptor: Int32 { poller }

    /// The switches' states, `SW_TABLET_MODE` and `SW_LID`, each nil when no device reports it (a switch any
    /// device reports on counts as on), after reading the events pending. Called with every sample: while
    /// nothing is pending it costs one poll of `descriptor` and allocates nothing.
    func read() -> (tabletMode: Bool?, lidClosed: Bool?) {
        var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 0) > 0 { refresh() }
        return states
    }

    /// Follows the input devices that came or went, reads every device's pending events (closing one that is
    /// gone), then the states they give.
    private func refresh() {
        followHotPlug()
        var i = 0
        while i < opened.count {
            if drain(&opened[i]) { i += 1 } else { remove(at: i, "went away") }
        }
        func state(_ kind: SwitchDescription.Kind) -> Bool? {
            var any: Bool?
            for o in opened { if let on = o.on[kind.rawValue] { any = (any ?? false) || on } }
            return any
        }
        states = (state(.tabletMode), state(.lid))
    }

    /// Reads `o`'s pending events into its state; false when the device is gone.
    private func drain(_ o: inout Opened) -> Bool {
        let size = InputSwitches.eventSize
        var dropped = false
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(o.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == ENODEV { return false }
                break
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + size <= n {
                    let type = raw.loadUnaligned(fromByteOffset: offset + size - 8, as: UInt16.self)
                    let code = raw.loadUnaligned(fromByteOffset: offset + size - 6, as: UInt16.self)
                    let value = raw.loadUnaligned(fromByteOffset: offset + size - 4, as: Int32.self)
                    if type == UInt16(EV_SW), o.switch_.kinds.contains(where: { $0.rawValue == Int(code) }) {
                        o.on[Int(code)] = value != 0
                    } else if type == UInt16(EV_SYN), code == UInt16(SYN_DROPPED) {
                        dropped = true
                    }
                    offset += size
                }
            }
        }
        // The kernel's queue overflowed: what was lost is in the state the ioctl gives.
        if dropped { InputSwitches.sync(&o) }
        return true
    }

    /// Takes `o`'s state from `EVIOCGSW`; leaves it as it was when the ioctl fails.
    private static func sync(_ o: inout Opened) {
        var bits = [UInt8](repeating: 0, count: 8)
        let r = bits.withUnsafeMutableBytes {
            rotationd_input_switch_states(o.fd, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32($0.count))
        }
        guard r >= 0 else { return }
        for kind in o.switch_.kinds { o.on[kind.rawValue] = bits[kind.rawValue / 8] & (1 << UInt8(kind.rawValue % 8)) != 0 }
    }
}
