import Glibc
import RotationSystem

/// A command run to its end, found on PATH, with standard input from /dev/null and its standard output and error
/// collected: for `systemd-hwdb`, `udevadm` and `tar`.
///
/// The command gets the signals a program started from a shell has: none blocked (a serving or recording rotationd
/// blocks its stop signals on every thread), and SIGPIPE, SIGINT, SIGTERM and SIGHUP at their defaults (rotationd
/// ignores SIGPIPE, and an ignored signal stays ignored across exec).
struct ChildCommand {
    /// The command and its arguments.
    let argv: [String]

    /// The command line, as a person would type it.
    var text: String { argv.joined(separator: " ") }

    /// Runs the command and returns its exit status (127 when it cannot be started, 128 + N when signal N ended
    /// it) and everything it printed.
    func run() -> (status: Int32, output: String) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return (127, Errno.current.description) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, environ)
        close(fds[1])
        defer { close(fds[0]) }
        guard rc == 0 else { return (127, Errno(rawValue: rc).description) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, String(decoding: bytes, as: UTF8.self))
    }
}
