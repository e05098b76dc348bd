/// How far the device is turned clockwise from its natural orientation, as the person facing the screen sees it.
///
/// Each case also carries the orientation name iio-sensor-proxy publishes for it.
public enum Rotation: Int, Sendable, Hashable, CaseIterable {
    /// Upright in the natural orientation: reads (0, −g, 0).
    case normal = 0
    /// Turned a quarter clockwise, left edge up: reads (+g, 0, 0).
    case leftUp = 90
    /// Upside down: reads (0, +g, 0).
    case bottomUp = 180
    /// Turned a quarter anticlockwise, right edge up: reads (−g, 0, 0).
    case rightUp = 270

    /// The rotation in degrees clockwise: 0, 90, 180 or 270.
    @inlinable public var degrees: Int { rawValue }

    /// Creates the rotation for a multiple of 90 degrees (any sign), or nil for any other angle.
    public init?(degrees: Int) {
        let d = ((degrees % 360) + 360) % 360
        self.init(rawValue: d)
    }

    /// The iio-sensor-proxy orientation name: `normal`, `left-up`, `bottom-up` or `right-up`.
    public var name: String {
        switch self {
        case .normal: return "normal"
        case .leftUp: return "left-up"
        case .bottomUp: return "bottom-up"
        case .rightUp: return "right-up"
        }
    }

    /// Parses an iio-sensor-proxy orientation name.
    public init?(name: String) {
        guard let match = Rotation.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}
