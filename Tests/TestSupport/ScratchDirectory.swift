import Foundation

/// A scratch directory, removed with everything in it when the value is released.
///
/// It is under /tmp with a short name unless told otherwise: a Unix socket's path is limited to 107 bytes, and the
/// tests bind sockets in these directories.
public final class ScratchDirectory {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates a directory named `prefix` and a few random characters in `parent`.
    public init(in parent: URL = URL(fileURLWithPath: "/tmp"), prefix: String = "rd-") throws {
        url = parent.appendingPathComponent(prefix + UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` (a relative path) in the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
