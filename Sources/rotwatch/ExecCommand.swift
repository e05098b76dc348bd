import Glibc
import RotationClient
import RotationProtocol
import RotationSystem

/// The names display programs give the turn that keeps the screen's content upright at a rotation, handed to
/// the `--exec` command in its environment.
///
/// The derivation, from the service's frame (`Rotation`): at `leftUp` the device is turned a quarter clockwise
/// as the person facing it sees it, its left edge up. Content drawn the panel's way up then looks turned a
/// quarter clockwise too, so to stand upright it must be drawn turned a quarter counter-clockwise on the
/// panel; at `rightUp` a quarter clockwise; at `bottomUp` a half turn.
///
/// - wl_output transforms count counter-clockwise (wayland.xml: `90` is "90 degrees counter-clockwise"), and
///   wlroots, wlr-randr (wlr-output-management), niri and Hyprland (by the enum's index) take them so; GNOME's
///   mutter also maps left-up to its transform 90. Hence left-up is `90`, right-up `270`.
/// - xrandr's `left` turns the picture counter-clockwise and `right` clockwise (xrandr(1)): left-up is
///   `left`, right-up `right`.
/// - sway's `output ... transform` counts clockwise (sway-output(5): "The rotation is performed clockwise";
///   sway inverts the value before handing it to wlroots), and `swaymsg -t get_outputs` reports it the same
///   way: left-up is `270`, right-up `90`.
enum DisplayNames {
    /// The wl_output transform: `normal`, `90`, `180`, `270`, counter-clockwise.
    static func transform(_ r: Rotation) -> String {
        switch r {
        case .normal: "normal"
        case .leftUp: "90"
        case .bottomUp: "180"
        case .rightUp: "270"
        }
    }

    /// The same turn in sway's clockwise count.
    static func swayTransform(_ r: Rotation) -> String {
        switch r {
        case .normal: "normal"
        case .leftUp: "270"
        case .bottomUp: "180"
        case .rightUp: "90"
        }
    }

    /// xrandr's `--rotate` value.
    static func xrandr(_ r: Rotation) -> String {
        switch r {
        case .normal: "normal"
        case .leftUp: "left"
        case .bottomUp: "inverted"
        case .rightUp: "right"
        }
    }

    /// The variables the command sees, in this order.
    static func environment(_ v: Viewed) -> [(String, String)] {
        let r = v.rotation
        return [("ROTATIOND_ROTATION", "\(r.degrees)"), ("ROTATIOND_ORIENTATION", r.name), ("ROTATIOND_TRANSFORM", transform(r)),
                ("ROTATIOND_SWAY_TRANSFORM", swayTransform(r)), ("ROTATIOND_XRANDR", xrandr(r)),
                ("ROTATIOND_POSTURE", v.posture?.rawValue ?? "unknown")]
    }
}

/// What a run of the command is for: the rotation, and a convertible's posture (nil where nothing tells it).
struct Viewed: Equatable {
    var rotation: Rotation
    var posture: Posture?

    /// How a run for this is named in a message.
    var name: String {
        "\(rotation.name) (\(rotation.degrees)°)" + (posture.map { ", \($0.rawValue)" } ?? "")
    }
}

/// Runs the `--exec` command through `/bin/sh -c` for the current rotation and posture and then for each change
/// of either, one run at a time.
///
/// A change that comes while the command runs waits; a later one replaces it, so that only the latest runs
/// next, and not at all when it is the rotation the finished run was for. Used from one task only: the
/// runs' ends come back through `exited`, which posts them to that task.
final class CommandRunner {
    /// The shell command.
    let command: String
    /// Called on a thread of its own when a run ends, with its process id and its wait status.
    let exited: @Sendable (pid_t, Int32) -> Void

    private var running: (pid: pid_t, viewed: Viewed)?
    private var pending: Viewed?
    private var lastSeen: Viewed?
    private var lastRun: Viewed?

    /// Creates a runner for `command`; nothing runs before the first rotation.
    init(command: String, exited: @escaping @Sendable (pid_t, Int32) -> Void) {
        self.command = command
        self.exited = exited
    }

    /// Takes the rotation and posture of a state: a new pair runs the command now, or next when it is running.
    /// An unknown rotation (undecided, or the service idle) and the same pair again are ignored.
    func seen(_ rotation: Rotation?, posture: Posture?) {
        guard let rotation else { return }
        let viewed = Viewed(rotation: rotation, posture: posture)
        guard viewed != lastSeen else { return }
        lastSeen = viewed
        if running == nil { start(viewed) } else { pending = viewed }
    }

    /// Takes the end of a run: reports a failure on standard error, then starts the pending rotation, if any.
    func runEnded(pid: pid_t, status: Int32) {
        guard let run = running, run.pid == pid else { return }
        running = nil
        if let failure = Self.failure(status) {
            say("rotwatch: the command for \(run.viewed.name) \(failure); "
                + "rotwatch goes on (to see why, run it by hand with the ROTATIOND_ variables rotwatch --help lists). Command: \(command)", to: 2)
        }
        if let next = pending {
            pending = nil
            if next != lastRun { start(next) }
        }
    }

    /// What went wrong with a run, from its wait status; nil when it exited 0.
    static func failure(_ status: Int32) -> String? {
        let signal = status & 0x7f
        if signal == 0 {
            let code = (status >> 8) & 0xff
            return code == 0 ? nil : "exited with status \(code)"
        }
        let name = strsignal(signal).map { String(cString: $0) } ?? "unknown signal"
        return "was killed by signal \(signal) (\(name))"
    }

    private func start(_ viewed: Viewed) {
        lastRun = viewed
        switch spawn(viewed) {
        case .success(let pid):
            running = (pid, viewed)
            let exited = self.exited
            startThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exited(pid, status)
            }
        case .failure(let error):
            say("rotwatch: could not start /bin/sh for the command for \(viewed.name): \(error); "
                + "check that /bin/sh exists and that rotwatch may start processes", to: 2)
        }
    }

    /// Starts `/bin/sh -c COMMAND` with the rotation's variables added to rotwatch's environment, standard input
    /// from /dev/null, standard output and error shared with rotwatch, and SIGPIPE back to its default
    /// (rotwatch ignores it, and an ignored signal stays ignored across exec).
    private func spawn(_ viewed: Viewed) -> Result<pid_t, Errno> {
        let added = DisplayNames.environment(viewed)
        var env: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if !added.contains(where: { $0.0 == name }) { env.append(text) }
            p += 1
        }
        env += added.map { "\($0.0)=\($0.1)" }
        let argv = ["/bin/sh", "-c", command]

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArgs, cEnv)
        return rc == 0 ? .success(pid) : .failure(Errno(rawValue: rc))
    }
}

/// Runs `body` on a new detached POSIX thread: a run's wait blocks it, and must not block the task that
/// follows the service.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    do { try SystemThread.detached(body) } catch {
        fail("could not start a thread to wait for the command: \(error); the system is out of threads or memory",
             status: 1)
    }
}
