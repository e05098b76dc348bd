import Glibc

/// A `sockaddr_un` for a filesystem path, or for an abstract name written with a leading `@`.
public struct UnixAddress {
    /// The address.
    public var storage = sockaddr_un()
    /// The length to pass to bind, connect or sendto.
    public var length: socklen_t

    /// Builds the address; nil when the path does not fit (107 bytes, plus the terminating zero for paths).
    public init?(_ path: String) {
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity || (abstract && bytes.count <= capacity) else { return nil }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = socklen_t(offset + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a generic `sockaddr` pointer and its length.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
