/// How a convertible is folded, as a desktop and a camera app care about it.
public enum Posture: String, Sendable, Hashable, CaseIterable {
    /// The lid lies on the base: the display faces the keyboard.
    case closed
    /// Opened, the base below the display and usable as a keyboard (up to about 200°).
    case laptop
    /// Folded past flat with the base face down as a foot and the display upright.
    case stand
    /// Folded past flat and stood on both edges: neither panel flat, the display upside down.
    case tent
    /// Folded back (or a detachable without its base): the display alone faces the user.
    case tablet

    /// Whether the keyboard cannot be used in this posture: the kernel's `SW_TABLET_MODE` reads 1 (stand,
    /// tent and tablet).
    public var isTabletMode: Bool {
        switch self {
        case .closed, .laptop: false
        case .stand, .tent, .tablet: true
        }
    }
}
