#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps a C library's own stderr messages in rotationd's log format.
///
/// libiio prints some notices straight to stderr (for example `WARNING: High-speed mode not enabled` whenever
/// it opens a buffer on a mainline kernel). `around(_:)` points descriptor 2 at a pipe for the duration of one
/// call, then writes each captured line through `SensorLog` as `rotationd: LEVEL: libiio: ...`. A line another
/// thread wrote in that window (already `rotationd: ...`) is passed on unchanged.
enum StandardErrorCapture {
    /// Lines that only say libiio lacks an optional speed-up; logged once, at info level.
    static let harmless = ["High-speed mode not enabled"]

    static func around<T>(_ body: () -> T) -> T {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return body() }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let saved = dup(2)
        guard saved >= 0, dup2(fds[1], 2) >= 0 else {
            if saved >= 0 { close(saved) }
            close(fds[0]); close(fds[1])
            return body()
        }
        close(fds[1])
        let result = body()
        _ = dup2(saved, 2)
        close(saved)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        close(fds[0])
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.isEmpty {
            if line.hasPrefix("rotationd: ") {
                OutputStreamFD.standardError.write(line + "\n")
                continue
            }
            var text = line[...]
            for prefix in ["WARNING: ", "ERROR: ", "DEBUG: ", "INFO: "] where text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
            }
            if harmless.contains(where: { text.hasPrefix($0) }) {
                SensorLog.once(.info, "libiio: \(text)")
            } else {
                SensorLog.write(.warning, "libiio: \(text)")
            }
        }
        return result
    }
}
