/// A local hwdb file (`/etc/udev/hwdb.d/61-sensor-local.hwdb`) with new entries merged in: pure text.
///
/// A hwdb file is a list of records separated by blank lines, each one or more match lines followed by property
/// lines (which start with a space); a line starting with `#` is a comment (hwdb(7)). Merging an entry replaces
/// the sensor's own: every match line that matches the sensor's key (as the hwdb would match it) goes, with its
/// record when no other match line is left in it, and the comment lines above that record. Properties such a
/// record gave besides the matrix and the location (a gyroscope's `ANGLVEL_MOUNT_MATRIX`) are kept in the new
/// entry. Every other record stays as it was. The new entries come last.
public struct HwdbFile: Sendable, Hashable {
    /// The file's name in `directory`: after systemd's own 60-sensor.hwdb, so its entries win.
    public static let name = "61-sensor-local.hwdb"
    /// The directory local hwdb files go in.
    public static let directory = "/etc/udev/hwdb.d"
    /// The first lines of a file this writes anew.
    public static let header = [
        "# Local sensor entries of the hardware database: hwdb(7); see systemd's 60-sensor.hwdb for the form.",
        "# After a change run systemd-hwdb update, then udevadm trigger for the sensor.",
    ]

    /// The merged file's text.
    public var text: String
    /// The entries as written, with the properties kept from those they replaced.
    public var entries: [HwdbEntry]
    /// The match lines taken out of the file, in the order they were in it.
    public var replaced: [String]

    /// `existing` (empty for a new file) with `entries` merged in.
    public init(merging entries: [HwdbEntry], into existing: String) {
        var merged = entries
        var replaced: [String] = []
        var kept: [[String]] = []
        for block in Self.blocks(existing) {
            let matches = block.filter(Self.isMatch)
            let gone = matches.filter { line in entries.contains { $0.key.isMatched(by: line.trimmingSpaces) } }
            if gone.isEmpty {
                kept.append(block)
                continue
            }
            replaced += gone
            for (i, entry) in merged.enumerated() where gone.contains(where: { entry.key.isMatched(by: $0.trimmingSpaces) }) {
                let extra = block.filter(Self.isProperty).map(\.trimmingSpaces).filter {
                    let name = HwdbEntry.propertyName($0)
                    return name != "ACCEL_MOUNT_MATRIX" && name != "ACCEL_LOCATION"
                }
                merged[i].kept += extra.filter { !merged[i].kept.contains($0) }
            }
            // The record stays for its other match lines; without any, it goes with the comments above it.
            if gone.count < matches.count { kept.append(block.filter { !gone.contains($0) }) }
        }
        if kept.isEmpty { kept.append(Self.header) }
        self.entries = merged
        self.replaced = replaced
        text = (kept + merged.map(\.lines)).map { $0.joined(separator: "\n") + "\n" }.joined(separator: "\n")
    }

    /// The runs of non-blank lines of `text`, in order.
    static func blocks(_ text: String) -> [[String]] {
        var out: [[String]] = []
        var current: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let l = String(line.hasSuffix("\r") ? line.dropLast() : line)
            if l.trimmingSpaces.isEmpty {
                if !current.isEmpty { out.append(current) }
                current = []
            } else {
                current.append(l)
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// Whether a line of a record is a match line: not a comment, not a property.
    static func isMatch(_ line: String) -> Bool { !line.hasPrefix("#") && !isProperty(line) }

    /// Whether a line of a record is a property line: it starts with a space or a tab.
    static func isProperty(_ line: String) -> Bool { line.hasPrefix(" ") || line.hasPrefix("\t") }
}
