/// An input device with the kernel's tablet-mode or lid switch, found by discovery: its event node and which of
/// the two it reports. A plain value; `InputSwitches` reads it.
///
/// Platform drivers register such a device for a convertible or a laptop: intel-vbtn ("Intel Virtual Switches"),
/// intel-hid, thinkpad_acpi ("ThinkPad Extra Buttons"), asus-wmi, cros-ec ("cros_ec_buttons"), gpio-keys, and the
/// ACPI lid (button.c, "Lid Switch"). The device's `capabilities/sw` attribute (the parent `inputN` of the
/// `eventN` node) lists the switch codes it reports, as hexadecimal words of the kernel's `long`, most
/// significant first: bit 0 is `SW_LID`, bit 1 `SW_TABLET_MODE` (`linux/input-event-codes.h`).
public struct SwitchDescription: Sendable, Hashable {
    /// The switches read.
    public enum Kind: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `SW_LID`: 1 while the lid is shut.
        case lid = 0
        /// `SW_TABLET_MODE`: 1 while the keyboard is folded away or detached.
        case tabletMode = 1

        /// The kernel's name of the code.
        public var description: String { self == .lid ? "SW_LID" : "SW_TABLET_MODE" }
    }

    /// The name of the tablet-mode switch rotationd makes through uinput (`--tablet-mode-switch`), which
    /// discovery leaves out (`isRotationdSwitch`): rotationd never reads its own output.
    public static let rotationdSwitchName = "rotationd tablet-mode switch"

    /// Whether the input device at `syspath` named `name` is the switch rotationd makes: uinput puts its devices
    /// under `/sys/devices/virtual/input/`, and rotationd names its own `rotationdSwitchName`.
    public static func isRotationdSwitch(syspath: String, name: String) -> Bool {
        syspath.hasPrefix("/sys/devices/virtual/input/") && name == rotationdSwitchName
    }

    /// The event node, such as `/dev/input/event5`.
    public var node: String
    /// The node's name, such as `event5`.
    public var sysname: String
    /// The device's name (the `name` attribute of its `inputN`), such as `Intel Virtual Switches`.
    public var name: String
    /// The switches among `Kind` that it reports, in code order.
    public var kinds: [Kind]

    /// The device of an `eventN` node whose parent reports `capabilities` (`capabilities/sw`'s text) and is
    /// named `name`; nil when it reports neither switch.
    public init?(node: String, sysname: String, name: String, capabilities: String) {
        let codes = SwitchDescription.codes(capabilities)
        let kinds = Kind.allCases.filter { codes.contains($0.rawValue) }
        guard !kinds.isEmpty else { return nil }
        self.node = node
        self.sysname = sysname
        self.name = name
        self.kinds = kinds
    }

    /// The switches it reports, by the kernel's names: `SW_LID and SW_TABLET_MODE`.
    public var reported: String { kinds.map(\.description).joined(separator: " and ") }

    /// The codes set in a `capabilities/*` attribute: hexadecimal words of `bitsPerWord` bits separated by
    /// spaces, most significant first (the kernel drops leading zero words). Text that is not hexadecimal sets none.
    public static func codes(_ text: String, bitsPerWord: Int = Int.bitWidth) -> Set<Int> {
        var out = Set<Int>()
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        for (position, word) in words.reversed().enumerated() {
            guard let value = UInt64(word, radix: 16) else { return [] }
            for bit in 0..<min(64, bitsPerWord) where value & (1 << UInt64(bit)) != 0 {
                out.insert(position * bitsPerWord + bit)
            }
        }
        return out
    }

    /// Human-readable lines for `rotationd --list`, each indented under a heading line.
    public var listing: String {
        ["\(sysname): \(name) (switch, \(node))",
         "  reports: " + reported,
         "  read: its state at the start (EVIOCGSW) and each change, never grabbed"].joined(separator: "\n")
    }
}
