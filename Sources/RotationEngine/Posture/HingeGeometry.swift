import RotationProtocol

/// The angle between a convertible's panels from what its two accelerometers read.
///
/// Both frames have x along the hinge, and opened flat the base's frame is the display's. The display's frame is
/// the base's turned about the hinge by 180° − hinge, so the direction of gravity in the plane across the hinge
/// (y, z) differs between the panels by that much, whatever way the device is held, as long as gravity has a part
/// in that plane: held with the hinge upright, it has none and the angle cannot be read. ChromeOS's tablet mode
/// controller reads its lid angle the same way.
public enum HingeGeometry {
    /// The angle in degrees, 0..<360, between the panels whose accelerometers read `lid` and `base`; nil when
    /// either reading's part across the hinge is below `minimumAcross` of its length (the hinge points within
    /// about asin(minimumAcross) of straight down or up).
    public static func angle(lid: Vector3, base: Vector3, minimumAcross: Double) -> Double? {
        guard across(lid) >= minimumAcross, across(base) >= minimumAcross else { return nil }
        let lidAngle = direction(lid), baseAngle = direction(base)
        let a = (180 + baseAngle - lidAngle).truncatingRemainder(dividingBy: 360)
        return a < 0 ? a + 360 : a
    }

    /// The share of a reading that lies across the hinge: |(y, z)| / |v|, 0 with the hinge upright, 1 level.
    public static func across(_ v: Vector3) -> Double {
        let l = v.length
        return l > 0 ? (v.y * v.y + v.z * v.z).squareRoot() / l : 0
    }

    /// The direction in degrees of a reading in the plane across the hinge, measured so that Rx(a)·(0, 0, g)
    /// = (0, −g·sin a, g·cos a) has direction a.
    static func direction(_ v: Vector3) -> Double { Angles.atan2Degrees(-v.y, v.z) }

    /// The angle `raw` (0..<360) read near closed or folded back, where both read alike, placed on the side the
    /// hinge was last known on: `previous` above 180° puts it at the folded-back end, else at the closed end.
    /// Inside `stableRange` the reading is unambiguous and returned as it is.
    public static func resolve(_ raw: Double, previous: Double?, stableRange: ClosedRange<Double>) -> Double {
        if stableRange.contains(raw) { return raw }
        let foldedBack = (previous ?? 0) > 180
        if foldedBack { return raw < 180 ? min(raw + 360, 360) : raw }
        return raw > 180 ? max(raw - 360, 0) : raw
    }
}
