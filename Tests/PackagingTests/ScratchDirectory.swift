import Foundation

/// A scratch directory under /tmp, removed with everything in it when the value is released.
final class ScratchDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = URL(fileURLWithPath: "/tmp/rp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
