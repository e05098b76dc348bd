import Glibc
import CMalloc
import RotationSystem

/// Gives back the page-table entries of code and read-only data that only starting up touched.
///
/// Starting a service touches far more of its program and libraries than it runs afterwards: argument
/// parsing, discovery, libiio's context, the first JSON, and the kernel maps 64 KiB around every page it
/// faults in. Those pages stay counted as the process's resident memory for as long as it lives. Once the
/// service has settled into its loop, `trim()` drops them (`madvise(MADV_DONTNEED)`) from every mapping that
/// is a read-only view of a file and holds no private copy of a page: text and constant data, never data the
/// process wrote, relocated or allocated. They remain in the page cache; the few the loop touches again come
/// back as minor faults. Then the free pages of every malloc arena go back too (`malloc_trim`): what start-up
/// and the trim's own reading of `/proc/self/smaps` (a few hundred kB) allocated and freed.
/// Measured in `Docs/bench-memory.txt`.
enum ResidentTrim {
    /// Drops the read-only file mappings' pages and the arenas' free pages; returns the kB that were resident
    /// in the mappings.
    @discardableResult
    static func trim() -> Int {
        let released = dropFileMappings()
        // After the parse above has freed what it allocated: the smaps text is a few hundred kB.
        _ = rotationd_malloc_trim()
        return released
    }

    /// Drops the pages of every read-only private file mapping that holds no private copy; returns the kB that
    /// were resident in them.
    private static func dropFileMappings() -> Int {
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
        // Line by line, without an array of all of them (smaps has some 30 lines per mapping).
        var rest = smaps[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[..<newline]
            rest = newline == rest.endIndex ? rest[newline...] : rest[rest.index(after: newline)...]
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
