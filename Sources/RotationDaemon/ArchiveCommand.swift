import Glibc
import RotationSystem

/// The system's `tar`, run to pack a report's directory into a gzip-compressed archive.
///
/// A `.tar.gz` is what a bug tracker takes as an attachment (GitHub takes `.gz` and `.tgz`, not `.tar`), and
/// tar and gzip are on every Debian system (both are Essential): packing with them costs rotationd no
/// compression code of its own.
enum ArchiveCommand {
    /// Why packing failed.
    struct Failure: Error, CustomStringConvertible {
        /// What happened, with the fix.
        let description: String
    }

    /// Packs the directory `name` under `parent` into `archive` (`tar -czf ARCHIVE -C PARENT NAME`), the members
    /// named `NAME/FILE`; tar's own messages go to standard error.
    static func pack(_ name: String, in parent: String, to archive: String) throws(Failure) {
        let argv = ["tar", "-czf", archive, "-C", parent, name]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // The report blocks its stop signals and ignores SIGPIPE; tar gets the usual ones.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var reset = sigset_t()
        sigemptyset(&reset)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&reset, s) }
        posix_spawnattr_setsigdefault(&attributes, &reset)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, "tar", &actions, &attributes, cArgs, environ)
        guard rc == 0 else {
            throw Failure(description: "cannot run tar: \(Errno(rawValue: rc)); install tar and gzip")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "tar -czf \(archive) failed (wait status \(status)); see its message above")
        }
    }
}
