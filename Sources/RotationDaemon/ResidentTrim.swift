import Glibc
import RotationSensors

/// Gives back the page-table entries of code and read-only data that only starting up touched.
///
/// Starting a service touches far more of its program and libraries than it runs afterwards: argument
/// parsing, discovery, libiio's context, the first JSON, and the kernel maps 64 KiB around every page it
/// faults in. Those pages stay counted as the process's resident memory for as long as it lives. Once the
/// service has settled into its loop, `trim()` drops them (`madvise(MADV_DONTNEED)`) from every mapping that
/// is a read-only view of a file and holds no private copy of a page: text and constant data, never data the
/// process wrote, relocated or allocated. They remain in the page cache; the few the loop touches again come
/// back as minor faults. Measured in `Docs/bench-memory.txt`.
enum ResidentTrim {
    /// Drops the read-only file mappings' pages; returns the kB that were resident in them.
    @discardableResult
    static func trim() -> Int {
        guard let smaps = try? TextFile.read("/proc/self/smaps") else { return 0 }
        var released = 0
        var candidate: (start: UInt, end: UInt)?
        var rss = 0
        func finish() {
            if let c = candidate, rss > 0,
               let p = UnsafeMutableRawPointer(bitPattern: c.start),
               madvise(p, Int(c.end - c.start), MADV_DONTNEED) == 0 {
                released += rss
            }
            candidate = nil
            rss = 0
        }
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-"), fields.count >= 5, !first.hasSuffix(":") {
                finish()
                // "start-end perms offset dev inode [path]": read-only, private, backed by a file.
                let range = first.split(separator: "-")
                guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                      fields[1].count == 4, fields[1].hasPrefix("r"), fields[1].dropFirst().first == "-",
                      fields[1].hasSuffix("p"), fields.count >= 6, fields[5].hasPrefix("/") else { continue }
                candidate = (start, end)
            } else if candidate != nil, fields.count >= 2 {
                if first == "Rss:" {
                    rss = Int(fields[1]) ?? 0
                } else if first == "Anonymous:", fields[1] != "0" {
                    // A page of it was copied: written (a relocated read-only-after-relocation table, a patch).
                    candidate = nil
                }
            }
        }
        finish()
        return released
    }
}
