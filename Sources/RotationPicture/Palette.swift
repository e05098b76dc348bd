import RotationProtocol

/// The picture's colours and line styles, chosen to read in print: each axis has a colour of the Okabe–Ito set,
/// which colour-blind readers tell apart, and a dash pattern of its own, which tells them apart in grey.
enum Palette {
    /// The three axes of a sensor: colour and dash pattern, x, y, z in order.
    static let axes: [(name: String, colour: String, dash: String?)] = [
        ("x", "#D55E00", nil),
        ("y", "#0072B2", "7 3"),
        ("z", "#009E73", "2 2"),
    ]
    /// A single series (the hinge sensor's angle).
    static let single = "#000000"
    /// The published hinge, drawn as steps.
    static let published = "#CC79A7"
    /// Text and axes.
    static let ink = "#222222"
    /// Grid lines.
    static let grid = "#DDDDDD"
    /// Decision markers.
    static let marker = "#444444"
    /// A flat spell's band, drawn at `flatOpacity` behind the plots, the lanes and its legend's hatching.
    static let flat = "#000000"
    /// The opacity of a flat spell's band.
    static let flatOpacity = 0.07

    /// The fill of a rotation's segment in the rotation lane; white before the first decision.
    static func fill(_ rotation: Rotation?) -> String {
        switch rotation {
        case .normal?: "#DCEAF7"
        case .leftUp?: "#FBE0D0"
        case .bottomUp?: "#DDEFD6"
        case .rightUp?: "#FFF0C2"
        case nil: "#FFFFFF"
        }
    }

    /// The fill of a posture's segment in the posture lane.
    static func fill(_ posture: Posture?) -> String {
        switch posture {
        case .closed?: "#E4E4E4"
        case .laptop?: "#DCEAF7"
        case .stand?: "#FFF0C2"
        case .tent?: "#FBE0D0"
        case .tablet?: "#DDEFD6"
        case nil: "#FFFFFF"
        }
    }
}
