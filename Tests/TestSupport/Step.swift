import Foundation

/// One step of the umockdev test bed's driver (`umockdev-driver.py --actions`), run in order.
///
/// Each case is one of the driver's verbs and encodes itself to the JSON list the driver takes, such as
/// `["wait", REGEX, SECONDS]`. Times are seconds (`Double`), on the driver's clock unless said otherwise. Paths
/// "under the testbed root" are relative to it (`sys/bus/iio/devices/iio:device0/buffer/enable`, `dev/iio:device0`).
public enum Step: Sendable, Hashable, Encodable {
    /// Starts the program under test (rotationd unless the launcher is given another). Without it the program
    /// never runs: the driver only sets up and drives the testbed.
    case start
    /// Replaces sysfs attributes of `device` (such as `iio:device0`) atomically, each a file name under the
    /// device's directory (`in_accel_x_raw`, `buffer/enable`) and its new value (a newline is appended); each file
    /// keeps its mode and owner.
    case set(_ device: String, _ attributes: [String: DriverJSON])
    /// Writes `struct.pack(format, *values[, t_ns])` into the PTY of device node `node` (`/dev/iio:device0`) at
    /// `hz` scans per second; a `format` ending in `q` gets a CLOCK_MONOTONIC timestamp in ns on the program's
    /// clock. A second feed on the same node replaces the values. The writer's longest pause is in the results.
    case feed(_ node: String, format: String, values: [Int], hz: Double)
    /// Stops the `feed` writer of `node`.
    case feedStop(_ node: String)
    /// In the background, plays a trace's x, y, z (divided by `scale`) in real time, looping, for `seconds`:
    /// `target` is `attr:DEVICE` (raw attributes updated at `hz`) or a node (buffered scans `<hhhxxq` at the
    /// device's sampling_frequency, else `hz`, written a watermark's worth at a time, else `burst` scans, as a
    /// hardware FIFO hands them over). The start time is in the results.
    case feedTrace(_ target: String, trace: String, scale: Double, hz: Double, seconds: Double, burst: Int)
    /// In the background, plays `trace` (a CSV of t,x,y,z[,gx,gy,gz] in the device frame, relative to
    /// Tests/fixtures) for `seconds` into every emulated sensor the fixture's sidecar describes, as the hardware
    /// would. With `holdUntil`, the trace holds at its first pose until that condition is met (checked while the
    /// next steps run), so that a program a loaded machine starts late misses none of it. The start (and how
    /// long it was held) is in the results.
    case play(_ trace: String, seconds: Double, holdUntil: Wait? = nil)
    /// Sleeps until `seconds` into the played trace (after the `play` step's start, plus the time the trace was
    /// held by `holdUntil` or for a late `suspend`).
    case waitPlay(_ seconds: Double)
    /// Waits for a line matching a regular expression (see `Wait`); the step fails after its timeout.
    case wait(Wait)
    /// Sleeps `seconds`.
    case sleep(_ seconds: Double)
    /// Removes the emulated device at `sysfsPath` (`/sys/devices/...`), and its node, announcing nothing: a `remove`
    /// uevent is sent first with `uevent`.
    case remove(_ sysfsPath: String)
    /// Adds the devices of an umockdev file (relative to Tests/fixtures), each announced with an `add` uevent as
    /// it is made: a node's ioctls (`switches`, `v4l2Controls`, `mediaGraph`) are attached before its device is.
    case add(_ file: String)
    /// Sends a uevent for the emulated device at `sysfsPath`.
    case uevent(_ sysfsPath: String, _ action: UeventAction)
    /// Fails unless the file `path` under the testbed root holds `content` (without its final newline).
    case expectFile(_ path: String, _ content: String)
    /// Waits up to `within` s (`Tolerance.reply` by default) until the file `path` under the testbed root holds
    /// `content`.
    case waitFile(_ path: String, _ content: String, within: Double = Tolerance.reply)
    /// Changes the mode of `path` under the testbed root to `mode`, octal text such as `"000"` or `"644"`.
    case chmod(_ path: String, _ mode: String)
    /// Gives `path` under the testbed root (following a symlink, such as a device node's to its PTY) to `owner`,
    /// `USER:GROUP`; a directory with all it holds.
    case chown(_ path: String, _ owner: String)
    /// Runs `argv` as root to its end, each `{root}` in an argument replaced by the testbed root; fails unless it
    /// exits 0.
    case exec(_ argv: [String])
    /// Reports the program's user, groups and capability sets (from /proc/PID/status) in the results.
    case credentials
    /// Connects to the program's Unix socket at `socket`, retrying for up to `within` s (`Tolerance.reply` by
    /// default) until it exists, and
    /// collects the lines it sends (the Nth connection's are `socket(N)` in the results).
    case connect(_ socket: String, within: Double = Tolerance.reply)
    /// The same as the user `uid` (a child process of the driver takes on that user and group, with no
    /// supplementary groups, and connects), so that the program's SO_PEERCRED sees that user; no account is needed.
    case connectAs(_ socket: String, uid: UInt32, within: Double = Tolerance.reply)
    /// Writes each line received so far on the socket connection to `path`, after the CLOCK_MONOTONIC time it
    /// arrived.
    case saveSock(_ path: String)
    /// Sends `text` and a newline on the socket connection: the `connection`th (from 1), else the latest.
    case send(_ text: String, connection: Int? = nil)
    /// Closes the socket connection.
    case disconnect
    /// Fails if the program has exited.
    case alive
    /// Measures the program's resident memory, CPU time and wake-ups over `seconds`.
    case measure(_ seconds: Double)
    /// Runs `argv` outside the testbed (without umockdev's preload) with PROGRAM_PID set; fails unless it exits 0.
    case run(_ argv: [String])
    /// Sends the program SIGTERM and waits for it.
    case stop
    /// Waits up to `within` s for the program to exit by itself; fails if it does not. Its exit status is in the
    /// results (`exitStatus`).
    case exit(within: Double)
    /// Emulates a camera sensor sub-device at `node`: its V4L2 controls answer with `controls`
    /// (`"orientation"`: 0 front, 1 back, 2 external; `"rotation"`: degrees); a control left out is absent.
    case v4l2Controls(_ node: String, _ controls: [String: Int])
    /// Emulates a media controller device at `node` whose topology is `graph`.
    case mediaGraph(_ node: String, _ graph: MediaGraph)
    /// Creates a directory under the testbed root, such as a device-tree node, which an umockdev file cannot hold.
    case mkdir(_ path: String)
    /// Fails unless the program's thread named `thread` exists and, once seen asleep, is woken at most `most`
    /// times in `seconds`.
    case asleep(thread: String, seconds: Double, most: Int = 0)
    /// From now on, fails the run if anyone opens a /dev/video* node of the testbed or the program holds one.
    case guardVideoNodes
    /// Starts the real iio-sensor-proxy beside the program, and monitor-sensor claiming its accelerometer; waits
    /// up to `within` s (15 when nil) for an orientation, and fails if none comes. What it reports is in the
    /// results.
    case sensorProxy(within: Double? = nil)
    /// In the background, reads `device`'s raw accelerometer attributes every `interval` s as a polling
    /// neighbour (rot8) does; its failed reads and its summary are in the results.
    case rawPoller(_ device: String, interval: Double)
    /// Emulates a system suspend of `seconds` and the resume after it (see `Suspend` for the options).
    case suspend(_ seconds: Double, Suspend = Suspend())
    /// Emulates an evdev device named `name` at `node` (an input device's event node, `/dev/input/event5`)
    /// reporting the switches in `states`, each on or off: `EVIOCGSW` and `EVIOCGBIT` answer as the kernel's would.
    case switches(_ node: String, name: String, _ states: [InputSwitch: Bool])
    /// Turns one switch of a `switches` device on or off: its state, and an `EV_SW` event and a report queued on
    /// the node for its readers.
    case flip(_ node: String, _ which: InputSwitch, _ on: Bool)
    /// Emulates `/dev/uinput` for a program that makes a switch device through it: the device it creates is
    /// registered with an event node answered as a `switches` device's, and each event it writes is passed on.
    case uinput
    /// Reads `node`'s switches back through evdev, as libinput would (a probe under the emulated kernel asks
    /// `EVIOCGSW`), until those in `expected` read so; fails after `within` s. `Step.madeByUInput` names the node
    /// the emulated uinput created.
    case readSwitches(_ node: String, _ expected: [InputSwitch: Bool], within: Double = Tolerance.reply)

    /// Emulates the internal keyboard at `node` (an event node of the devices, on the i8042 bus, such as
    /// `internal-keyboard.umockdev`'s `/dev/input/event0`) named `name`, with udev's database entry, so that
    /// libinput takes it.
    case keyboard(_ node: String, name: String)
    /// Types key `code` (30: `KEY_A`) on a `keyboard` device: a press and a release.
    case key(_ node: String, _ code: Int)
    /// Starts the real libinput beside the program (its udev backend, seat0, as a compositor runs it) and waits up
    /// to `within` s until it has taken the devices; its lines are the neighbour `"libinput"`'s (`LibinputLines`).
    case libinput(within: Double = Tolerance.reply)
    /// Waits up to `within` s for a line of libinput's matching `pattern` after the last match.
    case waitLibinput(_ pattern: String, within: Double = Tolerance.reply)
    /// Sends the program the signal `name` (`"TERM"`, `"SEGV"`, `"KILL"`) and goes on at once.
    case signal(_ name: String)
    /// Waits up to `within` s for the program to end, and fails unless it ended as `how` says: `"status 0"`, or
    /// `"signal SEGV"` (the signal's default action ended it). A `start` after it starts the program again.
    case ended(_ how: String, within: Double = Tolerance.exit)

    /// The node `readSwitches` reads when given this: the one the emulated uinput created (`Step.uinput`).
    public static let madeByUInput = "uinput"

    /// The driver's JSON list for this step.
    public var json: DriverJSON {
        func list(_ verb: String, _ args: DriverJSON...) -> DriverJSON { .array([.string(verb)] + args) }
        func strings(_ a: [String]) -> DriverJSON { .array(a.map { .string($0) }) }
        switch self {
        case .start: return list("start")
        case .set(let device, let attributes): return list("set", .string(device), .object(attributes))
        case .feed(let node, let format, let values, let hz):
            return list("feed", .string(node), .string(format), .array(values.map { .int($0) }), .double(hz))
        case .feedStop(let node): return list("feed-stop", .string(node))
        case .feedTrace(let target, let trace, let scale, let hz, let seconds, let burst):
            return list("feed-trace", .string(target), .string(trace), .double(scale), .double(hz), .double(seconds), .int(burst))
        case .play(let trace, let seconds, let holdUntil):
            if let holdUntil { return list("play", .string(trace), .double(seconds), ["hold_until": holdUntil.json]) }
            return list("play", .string(trace), .double(seconds))
        case .waitPlay(let seconds): return list("wait-play", .double(seconds))
        case .wait(let wait):
            guard let connection = wait.connection, case .array(let items) = wait.json else { return wait.json }
            return .array(items + [.int(connection)])
        case .sleep(let seconds): return list("sleep", .double(seconds))
        case .remove(let path): return list("remove", .string(path))
        case .add(let file): return list("add", .string(file))
        case .uevent(let path, let action): return list("uevent", .string(path), .string(action.rawValue))
        case .expectFile(let path, let content): return list("expect-file", .string(path), .string(content))
        case .waitFile(let path, let content, let within): return list("wait-file", .string(path), .string(content), .double(within))
        case .chmod(let path, let mode): return list("chmod", .string(path), .string(mode))
        case .chown(let path, let owner): return list("chown", .string(path), .string(owner))
        case .exec(let argv): return list("exec", strings(argv))
        case .credentials: return list("credentials")
        case .connect(let socket, let within): return list("connect", .string(socket), .double(within))
        case .connectAs(let socket, let uid, let within): return list("connect", .string(socket), .double(within), .int(Int(uid)))
        case .saveSock(let path): return list("save-sock", .string(path))
        case .send(let text, let connection):
            return connection.map { list("send", .string(text), .int($0)) } ?? list("send", .string(text))
        case .disconnect: return list("disconnect")
        case .alive: return list("alive")
        case .measure(let seconds): return list("measure", .double(seconds))
        case .run(let argv): return list("run", strings(argv))
        case .stop: return list("stop")
        case .exit(let within): return list("exit", .double(within))
        case .v4l2Controls(let node, let controls): return list("v4l2-controls", .string(node), .object(controls.mapValues { .int($0) }))
        case .mediaGraph(let node, let graph): return list("media-graph", .string(node), graph.json)
        case .mkdir(let path): return list("mkdir", .string(path))
        case .asleep(let thread, let seconds, let most): return list("asleep", .string(thread), .double(seconds), .int(most))
        case .guardVideoNodes: return list("guard-video-nodes")
        case .sensorProxy(let within): return within.map { list("sensor-proxy", .double($0)) } ?? list("sensor-proxy")
        case .rawPoller(let device, let interval): return list("raw-poller", .string(device), .double(interval))
        case .suspend(let seconds, let options): return list("suspend", .double(seconds), options.json)
        case .switches(let node, let name, let states):
            return list("switches", .string(node), .string(name),
                        .object(Dictionary(uniqueKeysWithValues: states.map { ($0.key.rawValue, .int($0.value ? 1 : 0)) })))
        case .flip(let node, let which, let on): return list("switch", .string(node), .string(which.rawValue), .int(on ? 1 : 0))
        case .uinput: return list("uinput")
        case .keyboard(let node, let name): return list("keyboard", .string(node), .string(name))
        case .key(let node, let code): return list("key", .string(node), .int(code))
        case .libinput(let within): return list("libinput", .double(within))
        case .waitLibinput(let pattern, let within): return list("wait-libinput", .string(pattern), .double(within))
        case .signal(let name): return list("signal", .string(name))
        case .ended(let how, let within): return list("ended", .string(how), .double(within))
        case .readSwitches(let node, let expected, let within):
            return list("read-switches", .string(node),
                        .object(Dictionary(uniqueKeysWithValues: expected.map { ($0.key.rawValue, .int($0.value ? 1 : 0)) })), .double(within))
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    /// `steps` as the driver's `--actions` text.
    public static func actions(_ steps: [Step]) -> String { DriverJSON.array(steps.map(\.json)).text }
}

/// What a `wait` step waits for: a line matching `pattern` (a Python regular expression, searched) on one of
/// the program's outputs, after the line the last wait on that output matched, for up to `timeout` seconds
/// (`Tolerance.reply` unless the factory is told otherwise).
public struct Wait: Sendable, Hashable {
    /// Where the line comes from.
    public enum Source: String, Sendable, Hashable {
        /// The program's stdout (`wait`).
        case stdout = "wait"
        /// The program's stderr (`wait-err`).
        case stderr = "wait-err"
        /// The current socket connection (`wait-sock`).
        case socket = "wait-sock"
        /// monitor-sensor, beside iio-sensor-proxy (`wait-proxy`).
        case proxy = "wait-proxy"
    }

    public var source: Source
    public var pattern: String
    /// Seconds.
    public var timeout: Double
    /// For a socket: the connection waited on (from 1), else the latest.
    public var connection: Int?

    public init(_ source: Source, _ pattern: String, within timeout: Double, connection: Int? = nil) {
        self.source = source
        self.pattern = pattern
        self.timeout = timeout
        self.connection = connection
    }

    /// A line of the program's stdout matching `pattern`, within `timeout` s.
    public static func stdout(_ pattern: String, within timeout: Double = Tolerance.reply) -> Wait { Wait(.stdout, pattern, within: timeout) }
    /// A line of the program's stderr matching `pattern`, within `timeout` s.
    public static func stderr(_ pattern: String, within timeout: Double = Tolerance.reply) -> Wait { Wait(.stderr, pattern, within: timeout) }
    /// A line received on the current socket connection matching `pattern`, within `timeout` s.
    public static func socket(_ pattern: String, within timeout: Double = Tolerance.reply) -> Wait { Wait(.socket, pattern, within: timeout) }
    /// A line received on the `connection`th socket connection (from 1) matching `pattern`, within `timeout` s.
    public static func socket(_ connection: Int, _ pattern: String, within timeout: Double = Tolerance.reply) -> Wait {
        Wait(.socket, pattern, within: timeout, connection: connection)
    }
    /// A line of monitor-sensor (beside iio-sensor-proxy) matching `pattern`, within `timeout` s.
    public static func proxy(_ pattern: String, within timeout: Double = Tolerance.reply) -> Wait { Wait(.proxy, pattern, within: timeout) }

    /// `[VERB, REGEX, TIMEOUT]`, the step and the `hold_until` condition alike.
    public var json: DriverJSON { [.string(source.rawValue), .string(pattern), .double(timeout)] }
}

/// A switch an emulated input device reports (`Step.switches`): the kernel's `SW_TABLET_MODE` and `SW_LID`.
public enum InputSwitch: String, Sendable, Hashable {
    case tabletMode = "tablet-mode"
    case lid
}

/// A uevent's action.
public enum UeventAction: String, Sendable, Hashable {
    case add, remove, change
}

/// How an emulated suspend goes (the `suspend` step's options; the driver's usage text, SUSPEND).
public struct Suspend: Sendable, Hashable {
    /// What becomes of a sensor's motion event over the sleep.
    public enum Events: String, Sendable, Hashable {
        /// Armed as before; its detector starts afresh (the driver's default).
        case kept
        /// Its configuration is lost while the enable files still read 1: no event until one is written 0, then 1.
        case lost
    }

    /// How a sensor hub's buffer comes back.
    public enum Hub: Sendable, Hashable {
        /// Every played sensor's buffer delivers nothing for `milliseconds` after the wake.
        case silent(milliseconds: Int)
        /// Every played sensor's buffer stays enabled and silent until buffer/enable is written 0 (then 1).
        case wedged
    }

    /// Seconds into the trace of the last `play` step when the sleep starts: the trace goes no further until the
    /// program is stopped. Nil: at once.
    public var at: Double?
    public var events: Events?
    public var hub: Hub?
    /// Says that a polled sensor reads its new pose as soon as it is read after the wake (changes nothing).
    public var powered: Bool?

    public init(at: Double? = nil, events: Events? = nil, hub: Hub? = nil, powered: Bool? = nil) {
        self.at = at
        self.events = events
        self.hub = hub
        self.powered = powered
    }

    /// The options object.
    public var json: DriverJSON {
        var o: [String: DriverJSON] = [:]
        if let at { o["at"] = .double(at) }
        if let events { o["events"] = .string(events.rawValue) }
        switch hub {
        case .silent(let ms)?: o["hid"] = ["silent": .int(ms)]
        case .wedged?: o["hid"] = "wedged"
        case nil: break
        }
        if let powered { o["powered"] = .bool(powered) }
        return .object(o)
    }
}

/// A media controller's topology, as `MEDIA_IOC_G_TOPOLOGY` reports it: each entity with a sink pad and a source
/// pad, each link a data link from one entity's source pad to another's sink pad.
public struct MediaGraph: Sendable, Hashable {
    /// One entity, with the device number of its interface if it has one.
    public struct Entity: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable { case video, subdev }
        public var name: String
        /// `MAJOR:MINOR`, or nil for an entity without a device node.
        public var device: String?
        public var kind: Kind

        public static func subdev(_ name: String, _ device: String? = nil) -> Entity { Entity(name: name, device: device, kind: .subdev) }
        public static func video(_ name: String, _ device: String? = nil) -> Entity { Entity(name: name, device: device, kind: .video) }
    }

    public var entities: [Entity]
    /// Each link as (from, to): indices into `entities`.
    public var links: [(Int, Int)]

    public init(entities: [Entity], links: [(Int, Int)]) {
        self.entities = entities
        self.links = links
    }

    public static func == (a: MediaGraph, b: MediaGraph) -> Bool {
        a.entities == b.entities && a.links.map { [$0.0, $0.1] } == b.links.map { [$0.0, $0.1] }
    }

    public func hash(into h: inout Hasher) {
        h.combine(entities)
        for (from, to) in links { h.combine(from); h.combine(to) }
    }

    public var json: DriverJSON {
        ["entities": .array(entities.map { [.string($0.name), $0.device.map { .string($0) } ?? .null, .string($0.kind.rawValue)] }),
         "links": .array(links.map { [.int($0.0), .int($0.1)] })]
    }
}
