import Foundation

/// What the test bed's driver reported (`--results`, one JSON object per line: Tests/Testbed/results.md), typed.
///
/// Times named `at` are seconds on the program's CLOCK_MONOTONIC (the clock of its `"t"`); durations are seconds.
public struct Results: Sendable {
    /// Every line, in the order the driver wrote them.
    public var events: [DriverEvent]
    /// Lines that did not decode (an event or a member this version does not know), verbatim.
    public var undecoded: [String]

    /// Decodes a results file's text.
    public init(data: Data) {
        events = []
        undecoded = []
        let decoder = JSONDecoder()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let e = try? decoder.decode(DriverEvent.self, from: Data(line.utf8)) {
                events.append(e)
            } else {
                undecoded.append(String(line))
            }
        }
    }

    /// The start of the last `play` step's trace.
    public var playStarted: PlayStart? {
        events.reduce(nil) { last, e in if case .playStarted(let p) = e { p } else { last } }
    }
    /// Each time a played trace stood still (a `hold_until` or a `hold-play` / `release-play` pair).
    public var playHolds: [PlayHold] { events.compactMap { if case .playHeld(let h) = $0 { h } else { nil } } }
    /// When each `feed-trace` step's target started, by target.
    public var feedTraceStarts: [String: Double] {
        var out: [String: Double] = [:]
        for case .feedTraceStarted(let target, let at) in events { out[target] = at }
        return out
    }
    /// The longest pause of each `feed` writer, s, by node.
    public var feederPauses: [String: Double] {
        var out: [String: Double] = [:]
        for case .feeder(let node, let pause) in events { out[node] = pause }
        return out
    }
    /// Every write to an emulated sysfs attribute (or the event-descriptor ioctl), the program's and its neighbours'.
    public var kernelWrites: [KernelWrite] { events.compactMap { if case .kernelWrite(let w) = $0 { w } else { nil } } }
    /// Every raw read that slept in the emulated driver.
    public var kernelReads: [KernelRead] { events.compactMap { if case .kernelRead(let r) = $0 { r } else { nil } } }
    /// Every open of an emulated device node the kernel refused.
    public var kernelOpens: [KernelOpen] { events.compactMap { if case .kernelOpen(let o) = $0 { o } else { nil } } }
    /// The other lines of the emulated kernel's logs (resume FIFOs, cancelled timerfds), the program's and its
    /// neighbours'.
    public var kernelLines: [String] { events.compactMap { if case .kernelLine(let line, _) = $0 { line } else { nil } } }
    /// When the program was stopped for each `suspend` step.
    public var suspendAsleep: [Double] { events.compactMap { if case .suspendAsleep(let at) = $0 { at } else { nil } } }
    /// How long each `suspend` step's trace stood at its `"at"`, waiting for the program to stop.
    public var suspendHeld: [Double] { events.compactMap { if case .suspendHeld(let s) = $0 { s } else { nil } } }
    /// Each wake of a `suspend` step.
    public var suspendWakes: [SuspendWake] { events.compactMap { if case .suspendWoke(let w) = $0 { w } else { nil } } }
    /// The IIO_SENSOR_PROXY_TYPE words each emulated device got (`sensor-proxy` step), by device.
    public var sensorProxyTypes: [String: [String]] {
        var out: [String: [String]] = [:]
        for case .sensorProxyType(let device, let types) in events { out[device] = types }
        return out
    }
    /// When monitor-sensor first reported an orientation other than undefined, and which.
    public var sensorProxyReady: ProxyOrientation? {
        events.lazy.compactMap { if case .sensorProxyReady(let o) = $0 { o } else { nil } }.first
    }
    /// Each orientation monitor-sensor reported, in order.
    public var sensorProxyOrientations: [ProxyOrientation] {
        events.compactMap { if case .sensorProxyOrientation(let o) = $0 { o } else { nil } }
    }
    /// Each failed read of a `raw-poller`.
    public var rawPollerErrors: [RawPollerError] { events.compactMap { if case .rawPollerError(let e) = $0 { e } else { nil } } }
    /// Each `raw-poller`'s counts at the end.
    public var rawPollerSummaries: [RawPollerSummary] {
        events.compactMap { if case .rawPollerSummary(let s) = $0 { s } else { nil } }
    }
    /// The program's credentials (`credentials` step), by field (`Uid`, `CapEff`…).
    public var credentials: [String: Credential] {
        var out: [String: Credential] = [:]
        for case .credentials(let c) in events { out[c.field] = c }
        return out
    }
    /// What each `measure` step measured.
    public var measures: [Measure] { events.compactMap { if case .measure(let m) = $0 { m } else { nil } } }
    /// The program's lines on `stream` (`"stdout"` or `"stderr"`), in order.
    public func output(_ stream: String) -> [TimedLine] {
        events.compactMap { if case .output(let s, let l) = $0, s == stream { l } else { nil } }
    }
    /// The lines received on the `n`th socket connection (from 1), in order.
    public func socket(_ n: Int) -> [TimedLine] {
        events.compactMap { if case .socket(let c, let l) = $0, c == n { l } else { nil } }
    }
    /// The lines of a neighbour (`"iio-sensor-proxy"`, `"monitor-sensor"`, `"raw-poller"`, `"libinput"`).
    public func neighbour(_ name: String) -> [TimedLine] {
        events.compactMap { if case .neighbourOutput(let n, _, let l) = $0, n == name { l } else { nil } }
    }
    /// The failed step and what failed, if one did.
    public var failure: DriverFailure? { events.lazy.compactMap { if case .failure(let f) = $0 { f } else { nil } }.first }
    /// Each change of an emulated switch (`Step.flip`), in order.
    public var switchChanges: [SwitchChange] { events.compactMap { if case .switched(let s) = $0 { s } else { nil } } }
    /// The devices the emulated uinput registered (`Step.uinput`), in order.
    public var uinputCreated: [UInputDevice] { events.compactMap { if case .uinputCreated(let d) = $0 { d } else { nil } } }
    /// Each switch event written to the emulated uinput, in order.
    public var uinputEvents: [UInputEvent] { events.compactMap { if case .uinputEvent(let e) = $0 { e } else { nil } } }
    /// The nodes of the devices the emulated uinput removed (`UI_DEV_DESTROY`), in order.
    public var uinputDestroyed: [String] { events.compactMap { if case .uinputDestroyed(let n) = $0 { n } else { nil } } }
    /// Each `Step.asleep`'s count of wake-ups, in order.
    public var wakeUps: [WakeUps] { events.compactMap { if case .wakeUps(let w) = $0 { w } else { nil } } }
    /// What each `Step.readSwitches` read back through evdev, in order.
    public var switchReadings: [SwitchReading] { events.compactMap { if case .switchesRead(let r) = $0 { r } else { nil } } }
    /// The program's exit status, once an `exit` step saw it end by itself.
    public var exitStatus: Int? { events.lazy.compactMap { if case .exited(let s) = $0 { s } else { nil } }.first }
    /// The driver's exit status, if it ended by itself.
    public var endStatus: Int? { events.lazy.compactMap { if case .end(let s) = $0 { s } else { nil } }.first }
}

/// One line of the driver's results.
public enum DriverEvent: Sendable, Decodable {
    case playStarted(PlayStart)
    case playHeld(PlayHold)
    case feedTraceStarted(target: String, at: Double)
    /// A `feed` writer's longest pause between two scans, s.
    case feeder(node: String, longestPause: Double)
    case kernelWrite(KernelWrite)
    case kernelRead(KernelRead)
    case kernelOpen(KernelOpen)
    /// Any other line of the emulated kernel's logs.
    case kernelLine(line: String, neighbour: Bool)
    case suspendAsleep(at: Double)
    case suspendHeld(seconds: Double)
    case suspendWoke(SuspendWake)
    case sensorProxyType(device: String, types: [String])
    case sensorProxyReady(ProxyOrientation)
    case sensorProxyOrientation(ProxyOrientation)
    case rawPollerError(RawPollerError)
    case rawPollerSummary(RawPollerSummary)
    case credentials(Credential)
    case measure(Measure)
    /// A `switch` step's change, queued on the node.
    case switched(SwitchChange)
    /// A device the emulated uinput registered.
    case uinputCreated(UInputDevice)
    /// An event written to the emulated uinput.
    case uinputEvent(UInputEvent)
    /// The node of a device the emulated uinput removed.
    case uinputDestroyed(node: String)
    /// An `asleep` step's count.
    case wakeUps(WakeUps)
    /// A `read-switches` probe's reading.
    case switchesRead(SwitchReading)
    /// A line of the program's, on `stream` (`"stdout"` or `"stderr"`).
    case output(stream: String, TimedLine)
    /// A line received on socket connection `connection` (from 1).
    case socket(connection: Int, TimedLine)
    case neighbourOutput(name: String, stream: String, TimedLine)
    case failure(DriverFailure)
    /// The program's exit status, seen by an `exit` step.
    case exited(status: Int)
    /// The driver's exit status.
    case end(status: Int)
    /// An event this version does not know.
    case other(String)

    private enum Key: String, CodingKey {
        case event, at, target, node, longest_pause, line, neighbour, seconds, device, types, stream, connection, name, status
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let event = try c.decode(String.self, forKey: .event)
        func timed() throws -> TimedLine { try TimedLine(from: decoder) }
        switch event {
        case "play-started": self = .playStarted(try PlayStart(from: decoder))
        case "play-held": self = .playHeld(try PlayHold(from: decoder))
        case "feed-trace-started": self = .feedTraceStarted(target: try c.decode(String.self, forKey: .target), at: try c.decode(Double.self, forKey: .at))
        case "feeder": self = .feeder(node: try c.decode(String.self, forKey: .node), longestPause: try c.decode(Double.self, forKey: .longest_pause))
        case "kernel-write": self = .kernelWrite(try KernelWrite(from: decoder))
        case "kernel-read": self = .kernelRead(try KernelRead(from: decoder))
        case "kernel-open": self = .kernelOpen(try KernelOpen(from: decoder))
        case "kernel-line": self = .kernelLine(line: try c.decode(String.self, forKey: .line), neighbour: try c.decode(Bool.self, forKey: .neighbour))
        case "suspend-asleep": self = .suspendAsleep(at: try c.decode(Double.self, forKey: .at))
        case "suspend-held": self = .suspendHeld(seconds: try c.decode(Double.self, forKey: .seconds))
        case "suspend-woke": self = .suspendWoke(try SuspendWake(from: decoder))
        case "sensor-proxy-type": self = .sensorProxyType(device: try c.decode(String.self, forKey: .device), types: try c.decode([String].self, forKey: .types))
        case "sensor-proxy-ready": self = .sensorProxyReady(try ProxyOrientation(from: decoder))
        case "sensor-proxy-orientation": self = .sensorProxyOrientation(try ProxyOrientation(from: decoder))
        case "raw-poller-error": self = .rawPollerError(try RawPollerError(from: decoder))
        case "raw-poller-summary": self = .rawPollerSummary(try RawPollerSummary(from: decoder))
        case "credentials": self = .credentials(try Credential(from: decoder))
        case "measure": self = .measure(try Measure(from: decoder))
        case "switch": self = .switched(try SwitchChange(from: decoder))
        case "uinput-created": self = .uinputCreated(try UInputDevice(from: decoder))
        case "uinput-event": self = .uinputEvent(try UInputEvent(from: decoder))
        case "uinput-destroyed": self = .uinputDestroyed(node: try c.decode(String.self, forKey: .node))
        case "wake-ups": self = .wakeUps(try WakeUps(from: decoder))
        case "read-switches": self = .switchesRead(try SwitchReading(from: decoder))
        case "output": self = .output(stream: try c.decode(String.self, forKey: .stream), try timed())
        case "socket": self = .socket(connection: try c.decode(Int.self, forKey: .connection), try timed())
        case "neighbour-output":
            self = .neighbourOutput(name: try c.decode(String.self, forKey: .name), stream: try c.decode(String.self, forKey: .stream), try timed())
        case "failure": self = .failure(try DriverFailure(from: decoder))
        case "exited": self = .exited(status: try c.decode(Int.self, forKey: .status))
        case "end": self = .end(status: try c.decode(Int.self, forKey: .status))
        default: self = .other(event)
        }
    }
}

/// A change of an emulated input switch (`Step.flip`): which, to what, and when its event was queued.
public struct SwitchChange: Sendable, Decodable {
    /// The event node, such as `/dev/input/event7`.
    public var node: String
    /// `"tablet-mode"` or `"lid"`.
    public var `switch`: String
    /// 1 on, 0 off.
    public var value: Int
    public var at: Double
}

/// A device registered through the emulated uinput: its event node, its name and the switches it reports.
public struct UInputDevice: Sendable, Decodable {
    public var node: String
    public var name: String
    /// `"tablet-mode"`, `"lid"`, or another code's number.
    public var switches: [String]
    public var at: Double
}

/// An event written to the emulated uinput: a switch's (`switch` set) or another kind (`type` and `code`).
public struct UInputEvent: Sendable, Decodable {
    public var node: String
    public var `switch`: String?
    public var type: Int?
    public var code: Int?
    public var value: Int
    /// Whether it changed the switch, and so reached the node's readers.
    public var changed: Bool
    public var at: Double
}

/// How often a thread woke while an `asleep` step counted.
public struct WakeUps: Sendable, Decodable {
    public var thread: String
    public var seconds: Double
    public var count: Int
}

/// A node's switches read back through evdev (`Step.readSwitches`).
public struct SwitchReading: Sendable, Decodable {
    public var node: String
    public var name: String?
    /// Switch (`"tablet-mode"`, `"lid"`) → 0 or 1; nil when the node could not be read.
    public var states: [String: Int]?
    public var at: Double
}

/// A line and when it arrived.
public struct TimedLine: Sendable, Decodable {
    public var line: String
    public var at: Double
}

/// A `play` step's start.
public struct PlayStart: Sendable, Decodable {
    public var at: Double
    /// The trace as the step named it.
    public var trace: String
}

/// A time a played trace stood still.
public struct PlayHold: Sendable, Decodable {
    /// How long it stood.
    public var seconds: Double
    /// Where, s into the trace (0 for a `hold_until`).
    public var atTrace: Double
    /// The `hold_until` condition (`[WAITVERB, REGEX, TIMEOUT]`), nil for a `hold-play` / `release-play` pair.
    public var until: [DriverJSON]?

    enum CodingKeys: String, CodingKey { case seconds, atTrace = "at_trace", until }
}

/// A write to an emulated sysfs attribute (or the event-descriptor ioctl) and the kernel's answer.
public struct KernelWrite: Sendable, Decodable, CustomStringConvertible {
    /// `iio:device0`.
    public var device: String
    /// The attribute under the device's directory (`buffer/enable`), or `dev/DEVICE` for the ioctl.
    public var file: String
    /// The text written, nil when the kernel refused before reading it.
    public var value: String?
    /// `"ok"` or an errno name such as `"EINVAL"`.
    public var result: String
    /// The kernel's reason for refusing.
    public var why: String?
    /// Written by a neighbour, not the program.
    public var neighbour: Bool

    /// Whether the kernel refused it.
    public var refused: Bool { result != "ok" }

    /// `DEVICE FILE "VALUE" RESULT[ WHY]` (or `DEVICE FILE RESULT WHY` without a value), as the kernel logs it.
    public var description: String {
        [device, file, value.map { "\"\($0)\"" }, result, why].compactMap { $0 }.joined(separator: " ")
    }
}

/// A raw read that slept in the emulated driver.
public struct KernelRead: Sendable, Decodable {
    public var device: String
    public var file: String
    public var sleptMs: Double
    /// When the read ended.
    public var at: Double
    public var neighbour: Bool

    enum CodingKeys: String, CodingKey { case device, file, sleptMs = "slept_ms", at, neighbour }
}

/// An open of an emulated device node the kernel refused.
public struct KernelOpen: Sendable, Decodable {
    public var device: String
    /// `dev/iio:device0`.
    public var node: String
    /// `"EBUSY"`.
    public var errno: String
    public var why: String?
    public var neighbour: Bool
}

/// A `suspend` step's wake.
public struct SuspendWake: Sendable, Decodable {
    /// Read just before the program was continued.
    public var at: Double
    /// How long the program was stopped, s.
    public var asleep: Double
}

/// An orientation monitor-sensor reported (`"normal"`, `"left-up"`…) and when.
public struct ProxyOrientation: Sendable, Decodable {
    public var at: Double
    public var orientation: String
}

/// A failed read of a `raw-poller`.
public struct RawPollerError: Sendable, Decodable {
    public var device: String
    public var errno: String
    public var attribute: String
    public var at: Double
}

/// A `raw-poller`'s counts: reads (each attribute counting once), EBUSY failures, other failures.
public struct RawPollerSummary: Sendable, Decodable {
    public var device: String
    public var reads: Int
    public var ebusy: Int
    public var other: Int
}

/// One field of the program's /proc/PID/status (`credentials` step).
public struct Credential: Sendable, Decodable {
    public var field: String
    /// The text after the colon, stripped.
    public var value: String
    /// That text split on whitespace.
    public var words: [String]
}

/// What a `measure` step measured.
public struct Measure: Sendable, Decodable {
    public var seconds: Double
    public var rssKB: Int?
    public var cpuSecondsPerMinute: Double?
    public var cpuPercent: Double?
    public var wakeupsPerSecond: Double?
    public var wakeupsByThread: [String: Double]?

    enum CodingKeys: String, CodingKey {
        case seconds, rssKB = "rss_kb", cpuSecondsPerMinute = "cpu_seconds_per_minute", cpuPercent = "cpu_percent"
        case wakeupsPerSecond = "wakeups_per_second", wakeupsByThread = "wakeups_by_thread"
    }
}

/// The driver's failure: the step as given (nil for one found after the steps) and what failed.
public struct DriverFailure: Sendable, Decodable, CustomStringConvertible {
    public var step: DriverJSON?
    public var message: String

    /// The failed step's verb.
    public var verb: String? { if case .array(let a)? = step { a.first?.string } else { nil } }

    public var description: String { step.map { "step \($0.text) failed: \(message)" } ?? message }
}
