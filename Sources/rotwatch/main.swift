import Glibc
import RotationClient
import RotationProtocol

let usage = """
usage: rotwatch [--json] [--once] [--socket PATH] [--version]
       rotwatch --exec COMMAND [--socket PATH]
       rotwatch --prefer KEY [--socket PATH]

Shows what rotationd publishes, like monitor-sensor: a header line naming the service, the sensor and
the cameras (with each one's device node, libcamera id, udev bus path and capture nodes, when known),
then one line per change with the time (monotonic seconds,
also for a served replay), the orientation and rotation, each camera's capture angle and the tilt;
on a convertible also each camera's direction (forward, backward, sideways, covered), the posture and
the hinge angle.
When a camera is plugged in or out, a "cameras:" line shows the new list before the state line.
The camera the service recommends to your user, the one a camera program should open, is marked
with * before its name; a camera that sees infrared only (for face unlock, not for pictures) is
listed as infrared.

  --exec COMMAND  run COMMAND through /bin/sh for the current rotation, then on each change of the
                  rotation or of a convertible's posture (not of the tilt, the hinge or the cameras; never
                  while the rotation is unknown), one run at a time:
                  a change during a run waits, and only the latest one runs next. Its environment adds
                  ROTATIOND_ROTATION (0, 90, 180, 270), ROTATIOND_ORIENTATION (normal, left-up, bottom-up,
                  right-up), ROTATIOND_TRANSFORM (the wl_output transform that keeps the screen upright:
                  normal, 90, 180, 270, counted counter-clockwise, for wlroots, wlr-randr, niri, Hyprland),
                  ROTATIOND_SWAY_TRANSFORM (the same in sway's clockwise count), ROTATIOND_XRANDR
                  (normal, left, inverted, right) and ROTATIOND_POSTURE (closed, laptop, stand, tent, tablet,
                  or unknown where nothing tells it, as on a plain tablet). A failing run is reported on standard error and rotwatch
                  goes on. rotwatch prints no state lines of its own then. Examples: man rotwatch
  --prefer KEY    make the camera KEY names (its name, device node, libcamera id or bus path) your
                  preferred camera, which rotationd keeps for your user across restarts, print the
                  camera now recommended to you and exit (0, or 1 when refused); --prefer '' forgets
                  the choice. A camera plugged in later is recommended until you choose again
  --json          print the service's raw JSON lines instead (protocol: Docs/protocol.md)
  --once          print the current state and exit: 0 on success, 2 when no service is running. When
                  the service was idle, waits up to 3 s for the state its sensor reports once sampling
  --socket PATH   the service's socket. Default: $ROTATIOND_SOCKET, else $XDG_RUNTIME_DIR/rotationd.sock
                  when it exists (not as root), else /run/rotationd/rotationd.sock
  --version       print the version and exit
  -h, --help      show this help

Without --once, rotwatch runs until interrupted. When the service stops it says so on standard error
and waits, reconnecting with backoff (up to 2 s between attempts); it never exits on its own.
A state line ends with the sensor's status unless it is ok: "sensor lost" (the sensor went away; the
last rotation holds), "sensor none" (no sensor found) or "sensor idle" (the service was not sampling
because nobody was subscribed; it starts as a client connects and the real status follows).
Colour is used only when standard output is a terminal and NO_COLOR is unset or empty.
"""

struct Arguments {
    var json = false
    var once = false
    var socket: String?
    var exec: String?
    var prefer: String?
}

func fail(_ message: String, status: Int32) -> Never {
    var text = "rotwatch: \(message)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func say(_ line: String, to fd: Int32 = 1) {
    var text = line + "\n"
    text.withUTF8 { buf in
        var off = 0
        while off < buf.count {
            let n = write(fd, buf.baseAddress! + off, buf.count - off)
            if n <= 0 { if errno == EINTR { continue }; exit(0) }
            off += n
        }
    }
}

var args = Arguments()
var rest = Array(CommandLine.arguments.dropFirst())
while !rest.isEmpty {
    let a = rest.removeFirst()
    switch a {
    case "--json": args.json = true
    case "--once": args.once = true
    case "--socket":
        guard !rest.isEmpty else { fail("--socket needs a path; see --help", status: 2) }
        args.socket = rest.removeFirst()
    case "--exec":
        guard !rest.isEmpty, !rest[0].isEmpty else { fail("--exec needs a command, such as --exec 'my-rotate.sh'; see --help", status: 2) }
        args.exec = rest.removeFirst()
    case "--prefer":
        guard !rest.isEmpty else { fail("--prefer needs a camera: its name, device node, libcamera id or bus path, or '' to forget the choice; see --help", status: 2) }
        args.prefer = rest.removeFirst()
    case "--version":
        say("rotwatch \(ServiceVersion.current)")
        exit(0)
    case "-h", "--help":
        say(usage)
        exit(0)
    default: fail("unknown option \(a); see --help", status: 2)
    }
}

if args.prefer != nil && (args.once || args.json || args.exec != nil) {
    fail("--prefer sets your preferred camera and exits: use it alone (with --socket)", status: 2)
}
if args.exec != nil && (args.once || args.json) {
    fail("--exec runs a command on each change and prints no state lines: leave out \(args.once ? "--once" : "--json")", status: 2)
}

// no-color.org: a NO_COLOR that is present and not empty turns colour off.
let colour = isatty(1) == 1 && (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true)
func paint(_ s: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }

/// The cameras as one list: name, facing, mount and, when known, the device node, libcamera's id, udev's
/// bus path and the capture nodes (when they are not just the device).
func cameraList(_ cameras: [Camera]) -> String {
    let cams = cameras.map { c in
        var parts = [c.facing.rawValue, "mount \(c.mount)°"]
        if let device = c.device { parts.append(device) }
        if let id = c.libcamera { parts.append("libcamera \(id)") }
        if let bus = c.busPath { parts.append("bus \(bus)") }
        if !c.nodes.isEmpty && c.nodes != [c.device] { parts.append("nodes " + c.nodes.joined(separator: " ")) }
        if c.infrared { parts.append("infrared") }
        return "\(c.name) (\(parts.joined(separator: ", ")))"
    }.joined(separator: ", ")
    return cams.isEmpty ? "none" : cams
}

/// The header line for a greeting.
func header(_ hello: Hello, path: String) -> String {
    paint("\(hello.service) \(hello.version)", "1") + " on \(path), protocol \(hello.protocolVersion)"
        + " | sensor: \(hello.sensor ?? "none") | cameras: \(cameraList(hello.cameras))"
}

/// One line for a state.
func describe(_ e: StateEvent) -> String {
    let time = e.time.isFinite ? JSONWriter.format(e.time, decimals: 3) : "-"
    let padded = String(repeating: " ", count: max(0, 10 - time.count)) + time
    var line = paint(padded, "2") + "  "
    if let r = e.state.rotation {
        let name = r.name + String(repeating: " ", count: max(0, 9 - r.name.count))
        let deg = "\(r.degrees)°"
        line += paint(name, "1;36") + " " + deg + String(repeating: " ", count: max(0, 5 - deg.count))
    } else {
        line += "unknown         "
    }
    let fold = e.state.fold
    for cam in e.cameras {
        let angle = fold.rotation(of: cam, display: e.state.rotation).map { "\(cam.captureAngle(for: $0))°" } ?? "-"
        // The camera to open is marked: "*front", where the others have a space.
        let mark = cam.name == e.preferred ? paint("*", "1;32") : " "
        line += " \(mark)\(cam.name) \(angle)" + String(repeating: " ", count: max(0, 4 - angle.count))
        // On a convertible, where each camera looks as the fold puts it.
        if fold.posture != nil, let d = fold.direction(of: cam) { line += " \(d.rawValue)" }
    }
    line += "  tilt \(e.state.tilt?.name ?? "unknown")"
    if e.state.flat { line += " (flat)" }
    if let posture = fold.posture {
        line += "  " + paint(posture.rawValue, "1;33") + " " + (fold.hinge.map { "\($0)°" } ?? "hinge unknown")
    }
    switch e.sensor {
    case .ok: break
    case .idle: line += "  " + paint("sensor idle (not sampling until a client subscribes; starting)", "2")
    case .lost, .none: line += "  " + paint("sensor \(e.sensor.rawValue)", "1;31")
    }
    if e.missed > 0 { line += "  (missed \(e.missed))" }
    return line
}

let client = RotationClient(path: args.socket)

if let key = args.prefer {
    do {
        let answer = try client.prefer(key.isEmpty ? nil : key)
        let now = answer.preferredCamera.map { "\($0.name)" + ($0.device.map { " (\($0))" } ?? "") } ?? "none"
        say((key.isEmpty ? "your preferred camera is forgotten" : "your preferred camera is \(key)") + "; the camera to open now: \(now)")
        exit(0)
    } catch {
        fail(error.description, status: error.refusal == nil ? 2 : 1)
    }
}

if args.once {
    do {
        let (hello, state, line) = try client.currentState(timeout: 5, idleWait: 3)
        if args.json {
            say(line)
        } else {
            say(header(hello, path: client.path))
            say(describe(state))
        }
        exit(0)
    } catch {
        fail(error.description, status: 2)
    }
}

signal(SIGPIPE, SIG_IGN)

if let command = args.exec {
    /// What the --exec loop waits on: the service, and the end of a run.
    enum Input: Sendable {
        case service(ServiceEvent)
        case exited(pid_t, Int32)
    }
    let (inputs, feed) = AsyncStream<Input>.makeStream()
    let runner = CommandRunner(command: command) { pid, status in feed.yield(.exited(pid, status)) }
    Task {
        for await event in client.events() { feed.yield(.service(event)) }
        feed.finish()
    }
    for await input in inputs {
        switch input {
        case .exited(let pid, let status):
            runner.runEnded(pid: pid, status: status)
        case .service(.message(.state(let e), _)):
            runner.seen(e.state.rotation, posture: e.state.fold.posture)
        case .service(.message(.error(let e), _)):
            say("rotwatch: service error: \(e)", to: 2)
        case .service(.disconnected(let reason, _)):
            say("rotwatch: \(reason) at \(client.path); waiting for the service, retrying with backoff", to: 2)
        case .service:
            break
        }
    }
    exit(0)
}
// The camera list last shown: a state that brings another one (a camera plugged in or out) shows it first.
var shownCameras: [Camera] = []
for await event in client.events() {
    switch event {
    case .connected(let path, let hello, let line):
        shownCameras = hello.cameras
        if args.json { say(line) } else { say(header(hello, path: path)) }
    case .message(let message, let line):
        if args.json { say(line); continue }
        switch message {
        case .state(let e):
            if e.cameras != shownCameras {
                shownCameras = e.cameras
                say("cameras: \(cameraList(e.cameras))")
            }
            say(describe(e))
        case .error(let e): say("rotwatch: service error: \(e)", to: 2)
        default: break
        }
    case .disconnected(let reason, _):
        say("rotwatch: \(reason) at \(client.path); waiting for the service, retrying with backoff", to: 2)
    case .preferredCamera:
        // Marked in the state line that carried it.
        break
    }
}
