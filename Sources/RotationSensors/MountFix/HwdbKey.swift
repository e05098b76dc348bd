import Glibc

/// The key udev looks an IIO sensor up by in systemd's hwdb, and the match line an entry for it is written with:
/// pure text, from what sysfs says of the sensor and the machine.
///
/// systemd's 60-sensor.rules looks up `sensor:<label>:modalias:<modalias>:<DMI modalias>` for a sensor with a
/// `label` attribute (a cros-ec sensor with a `location` but no label: `accel-base` or `accel-display`), else
/// `sensor:modalias:<modalias>:<DMI modalias>`, where `<modalias>` is the sensor's nearest parent on the usb, i2c
/// or platform bus's `modalias` and `<DMI modalias>` is /sys/class/dmi/id/modalias (empty without DMI).
///
/// The match line narrows that key as 60-sensor.hwdb's entries do: an ACPI modalias to its first id
/// (`acpi:BOSC0200*`), any other kept whole; of the DMI modalias, the system's vendor, product name and version
/// (`svn`, `pn`, `pvr`), contiguous, between wildcards (`dmi:*:svnVENDOR:pnPRODUCT:pvrVERSION:*`); the firmware's
/// fields (`bvn`, `bvr`, `bd`, `br`, `efr`), which a firmware update changes, never. A product name or version
/// that is a placeholder ("Default string", "To be filled by O.E.M.") says nothing of the machine: a placeholder
/// version is left out, and a placeholder product name brings in the board's vendor and name and the SKU. A
/// character that the hwdb would read as a wildcard (`*`, `?`, `[`, `]`, `\`) is matched with `?`.
public struct HwdbKey: Sendable, Hashable {
    /// What the key starts with before `modalias:`: `sensor:` or `sensor:<label>:`.
    public var prefix: String
    /// The parent's modalias, such as `acpi:BOSC0200:BOSC0200:`.
    public var modalias: String
    /// The machine's DMI modalias, such as `dmi:bvn...:svnONDA:pnV975w:...`, or empty without DMI.
    public var dmi: String

    /// The key from the sensor's `label` attribute, its `name` and `location` attributes, its parent's modalias and
    /// the machine's DMI modalias (each as sysfs gives it, its newline removed; nil when the file is absent).
    public init(label: String?, name: String, location: String?, modalias: String, dmi: String?) {
        if let label, !label.isEmpty {
            prefix = "sensor:\(label):"
        } else if name == "cros-ec-accel" || name == "cros-ec-accel-legacy", location == "base" || location == "lid" {
            prefix = location == "base" ? "sensor:accel-base:" : "sensor:accel-display:"
        } else {
            prefix = "sensor:"
        }
        self.modalias = modalias
        self.dmi = dmi ?? ""
    }

    /// The exact key udev looks up for this sensor.
    public var lookup: String { prefix + "modalias:" + modalias + ":" + dmi }

    /// The match line of an entry for this sensor on this machine.
    public var match: String {
        prefix + "modalias:" + Self.narrowed(modalias: modalias) + ":" + (dmi.isEmpty ? "*" : Self.narrowed(dmi: dmi))
    }

    /// Whether `pattern` (a hwdb match line) matches this key, as the hwdb matches it (fnmatch).
    public func isMatched(by pattern: String) -> Bool { fnmatch(pattern, lookup, 0) == 0 }

    /// The machine as its DMI names it, for an entry's comment: vendor, product (the board's name when the
    /// product's is a placeholder) and version, such as `ONDA V975w`; nil without DMI.
    public var machine: String? {
        let fields = Self.fields(dmi)
        func value(_ name: String) -> String? { fields.first { $0.name == name && !Self.isPlaceholder($0.value) }?.value }
        let words = [value("svn"), value("pn") ?? value("rn"), value("pvr")].compactMap { $0 }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// An ACPI modalias narrowed to its first id (`acpi:BOSC0200*`); any other as it is.
    static func narrowed(modalias: String) -> String {
        let parts = modalias.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count >= 2, parts[0] == "acpi", !parts[1].isEmpty { return "acpi:" + escaped(String(parts[1])) + "*" }
        var text = modalias
        while text.hasSuffix(":") { text.removeLast() }
        return escaped(text)
    }

    /// The DMI fields of a DMI modalias, in order, in the kernel's names (drivers/firmware/dmi-id.c).
    static let fieldNames = ["bvn", "bvr", "bd", "br", "efr", "svn", "pn", "pvr", "rvn", "rn", "rvr", "cvn", "ct", "cvr", "sku"]

    /// Each `name`+`value` field of a DMI modalias, in order (a field of a name not known is kept, named "").
    static func fields(_ dmi: String) -> [(name: String, value: String)] {
        guard dmi.hasPrefix("dmi:") else { return [] }
        return dmi.dropFirst(4).split(separator: ":").map { field in
            let name = fieldNames.first { field.hasPrefix($0) } ?? ""
            return (name, String(field.dropFirst(name.count)))
        }
    }

    /// The DMI modalias narrowed to the fields that name the machine (see the type's summary).
    static func narrowed(dmi: String) -> String {
        let fields = fields(dmi)
        let productKnown = fields.contains { $0.name == "pn" && !isPlaceholder($0.value) }
        var wanted: Set<String> = ["svn", "pn", "pvr"]
        if !productKnown { wanted.formUnion(["rvn", "rn", "sku"]) }
        // Runs of wanted fields that lie next to each other in the modalias, each run between wildcards.
        var runs: [[String]] = []
        var previous = -2, first: Int?
        for (i, f) in fields.enumerated() where wanted.contains(f.name) && (f.name == "svn" || f.name == "pn" || !isPlaceholder(f.value)) {
            let text = f.name + escaped(f.value)
            if i == previous + 1 { runs[runs.count - 1].append(text) } else { runs.append([text]) }
            previous = i
            first = first ?? i
        }
        guard let first else { return "dmi:*" }
        // A run that starts the modalias (a machine whose firmware fields are all missing) follows "dmi:" at once.
        return (first == 0 ? "dmi:" : "dmi:*:") + runs.map { $0.joined(separator: ":") }.joined(separator: ":*:") + ":*"
    }

    /// Values firmware leaves in a field it was not given, after dmi-id.c took out blanks and colons.
    static let placeholders: Set<String> = [
        "", "defaultstring", "tobefilledbyo.e.m.", "systemproductname", "systemversion", "notapplicable", "notspecified",
        "none", "n/a", "na", "x.x", "o.e.m.", "oem", "invalid", "type1productconfigid", "type2-boardproductname1",
        "default", "0123456789", "123456789", "1234567890", "systemskunumber", "sku",
    ]

    /// Whether a DMI value is one firmware leaves when it was not given one.
    static func isPlaceholder(_ value: String) -> Bool { placeholders.contains(value.lowercased()) }

    /// `text` with each character the hwdb reads as a wildcard or an escape replaced by `?`.
    static func escaped(_ text: String) -> String {
        String(text.map { "*?[]\\".contains($0) ? "?" : $0 })
    }
}
