import Glibc
import RotationProtocol

/// The path `path`'s symlinks lead to, or nil when it does not exist.
func resolvedPath(_ path: String) -> String? {
    // Into a buffer of our own: a realpath() that allocates hands back memory some preloads (umockdev's) cannot
    // free again.
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard realpath(path, &buffer) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension StateEvent {
    /// The camera that `key` names: a name, libcamera id, node (symlinks resolved) or bus path (`CameraLookup`).
    public func camera(matching key: String) -> Camera? { CameraLookup.camera(key, in: cameras, resolve: resolvedPath) }
}

extension Hello {
    /// The camera that `key` names: a name, libcamera id, node (symlinks resolved) or bus path (`CameraLookup`).
    public func camera(matching key: String) -> Camera? { CameraLookup.camera(key, in: cameras, resolve: resolvedPath) }
}
