import Glibc
import RotationSystem

/// The process's limit on open descriptors (RLIMIT_NOFILE), which bounds how many clients can connect.
///
/// systemd and most shells start services with a soft limit of 1024, far below `ServerLimits.maxClients`,
/// while the hard limit is much higher; an unprivileged process may raise its soft limit up to the hard one.
public enum OpenFileLimit {
    /// Descriptors the service needs besides one per client: standard streams, the listener, the wake-up
    /// pipe, sensor and udev descriptors, with room to spare.
    public static let reserve = 64

    /// Raises the soft limit so that `clients` clients fit, as far as the hard limit allows; returns the
    /// soft limit now in force. Logs a warning when the hard limit is too low.
    @discardableResult
    public static func raise(toFit clients: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        let needed = rlim_t(clients + reserve)
        if limit.rlim_cur < needed && limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur < needed {
            Log.warning("at most about \(Int(limit.rlim_cur) - reserve) clients can connect: the open-file limit is \(limit.rlim_cur) (hard limit \(limit.rlim_max)); raise LimitNOFILE= in rotationd.service, or ulimit -n")
        }
        return Int(limit.rlim_cur)
    }
}
