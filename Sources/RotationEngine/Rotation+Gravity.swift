import RotationProtocol

extension Rotation {
    /// The quadrant gravity's in-plane direction points into, whatever the current rotation.
    static func nearest(_ f: Vector3) -> Rotation {
        // In-plane direction as (cos, sin) of the clockwise angle from upright: upright (0, −g) is 0°,
        // left edge up (+g, 0) is 90°.
        let cosA = -f.y, sinA = f.x
        if abs(cosA) >= abs(sinA) { return cosA >= 0 ? .normal : .bottomUp }
        return sinA >= 0 ? .leftUp : .rightUp
    }

    /// The in-plane part of `f` along this rotation's direction (upright (0, −g) is 0°, left edge up (+g, 0) is
    /// 90°, clockwise).
    func along(_ f: Vector3) -> Double {
        switch self {
        case .normal: -f.y
        case .leftUp: f.x
        case .bottomUp: f.y
        case .rightUp: -f.x
        }
    }
}
