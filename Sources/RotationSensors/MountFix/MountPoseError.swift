/// Why the readings of the guided mount fix's poses give no mount matrix; each case says what was wrong with the
/// poses and how to hold them instead. Poses are numbered from 1, as the fix asks for them.
public enum MountPoseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A pose read (next to) nothing: the sensor reports no gravity.
    case noGravity(pose: Int)
    /// A pose read a gravity much longer or shorter than the others: the device was accelerating, an axis was
    /// clipped, or the offsets are uncalibrated.
    case gravityLength(pose: Int, length: Double, typical: Double)
    /// Two poses read the same direction.
    case repeated(first: Int, second: Int, degrees: Double)
    /// Two poses read opposite directions.
    case opposite(first: Int, second: Int)
    /// Two poses that should be a quarter turn apart were not.
    case notOrthogonal(first: Int, second: Int, degrees: Double)
    /// A pose's reading lies too far from every one of the sensor's axes to tell which one is up.
    case notAxisAligned(pose: Int, degrees: Double)
    /// The device moved while a pose was measured.
    case moved(pose: Int, degrees: Double)

    /// What went wrong and how to hold the device instead.
    public var description: String {
        switch self {
        case .noGravity(let p):
            return "pose \(p) read no gravity at all (every axis next to 0): the sensor reports nothing usable; check it with rotationd --list"
        case .gravityLength(let p, let length, let typical):
            return "pose \(p) read gravity as \(Self.number(length)) where the others read \(Self.number(typical)): the device was moving or shaken, or an axis clipped; hold each pose still, resting the device against something, and run again"
        case .repeated(let a, let b, let degrees):
            return "pose \(b) read the same way up as pose \(a) (\(Self.number(degrees))° apart): the device was not turned between them; run again and turn it as each pose asks"
        case .opposite(let a, let b):
            return "pose \(b) read the opposite way up from pose \(a): the device was turned half a turn instead of a quarter, or the wrong way; run again and turn it as each pose asks"
        case .notOrthogonal(let a, let b, let degrees):
            return "poses \(a) and \(b) are \(Self.number(degrees))° apart, where they should be a quarter turn (90°) apart: run again and hold each pose squarely, as it asks"
        case .notAxisAligned(let p, let degrees):
            return "in pose \(p) the sensor read \(Self.number(degrees))° away from the nearest of its axes, more than \(Self.number(MountSolver.axisTolerance))°: hold the pose squarely (a sensor mounted at an angle needs a matrix of fractions, which this fix does not write; see Docs/hwdb-quirks.md)"
        case .moved(let p, let degrees):
            return "the device moved by \(Self.number(degrees))° while pose \(p) was measured: run again and keep it still until the bar is full, resting it against something"
        }
    }

    /// A number with at most one decimal.
    static func number(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
