import Glibc

/// Who is on the other end of a Unix socket, as the kernel recorded it at connect time.
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's effective user id.
    public var uid: UInt32
    /// The peer's effective group id.
    public var gid: UInt32

    /// Reads SO_PEERCRED; nil when the kernel refuses.
    public static func of(_ fd: Int32) -> PeerCredentials? {
        // struct ucred is three 32-bit fields: pid, uid, gid (Glibc hides the type without _GNU_SOURCE).
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var len = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0, len >= 12 else { return nil }
        return PeerCredentials(pid: cred.0, uid: cred.1, gid: cred.2)
    }

    /// The peer's supplementary groups (SO_PEERGROUPS); empty when the kernel cannot say.
    public static func groups(of fd: Int32) -> [UInt32] {
        let peerGroups: Int32 = 59 // SO_PEERGROUPS, Linux 4.13 and later
        var groups = [gid_t](repeating: 0, count: 64)
        var len = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        var rc = getsockopt(fd, SOL_SOCKET, peerGroups, &groups, &len)
        if rc != 0 && errno == ERANGE {
            groups = [gid_t](repeating: 0, count: Int(len) / MemoryLayout<gid_t>.size + 1)
            len = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            rc = getsockopt(fd, SOL_SOCKET, peerGroups, &groups, &len)
        }
        guard rc == 0 else { return [] }
        return Array(groups.prefix(Int(len) / MemoryLayout<gid_t>.size))
    }

    /// Whether this peer, connected on `fd`, may read raw samples: root, or a member of `group` (primary or
    /// supplementary; the supplementary groups are asked of `fd` only when needed).
    public func mayReadSamples(group: UInt32?, fd: Int32) -> Bool {
        if uid == 0 { return true }
        guard let group else { return false }
        return gid == group || PeerCredentials.groups(of: fd).contains(group)
    }

    /// The id of the group named `name`, or nil when there is none.
    public static func groupID(named name: String) -> UInt32? {
        guard let g = getgrnam(name) else { return nil }
        return g.pointee.gr_gid
    }
}
