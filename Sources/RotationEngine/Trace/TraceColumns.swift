import RotationProtocol

/// The optional column groups a trace carries after `t,x,y,z`.
public struct TraceColumns: OptionSet, Sendable, Hashable {
    /// The option set's bits.
    public let rawValue: Int
    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `gx,gy,gz`: the gyroscope, rad/s in the device frame.
    public static let gyro = TraceColumns(rawValue: 1)
    /// `bx,by,bz`: a convertible's base accelerometer, m/s² in the base's frame.
    public static let base = TraceColumns(rawValue: 2)
    /// `hinge`: a hinge sensor's angle between the panels, degrees.
    public static let hinge = TraceColumns(rawValue: 4)
    /// `tablet_mode`: the kernel's tablet-mode switch, 0 or 1.
    public static let tabletMode = TraceColumns(rawValue: 8)
    /// `lid_closed`: the kernel's lid switch, 1 while closed.
    public static let lidClosed = TraceColumns(rawValue: 16)

    /// The columns a recording needs for `sample`: a group for each reading it carries.
    public init(of sample: Sample) {
        self = []
        if sample.angularVelocity != nil { insert(.gyro) }
        if sample.base != nil { insert(.base) }
        if sample.hinge != nil { insert(.hinge) }
        if sample.tabletMode != nil { insert(.tabletMode) }
        if sample.lidClosed != nil { insert(.lidClosed) }
    }

    /// One group of columns, named together in a header.
    enum Group: CaseIterable {
        case gyro, base, hinge, tabletMode, lidClosed

        var names: [String] {
            switch self {
            case .gyro: ["gx", "gy", "gz"]
            case .base: ["bx", "by", "bz"]
            case .hinge: ["hinge"]
            case .tabletMode: ["tablet_mode"]
            case .lidClosed: ["lid_closed"]
            }
        }

        /// What a reading of the group is called in an error.
        var reading: String {
            switch self {
            case .gyro: "gyroscope"
            case .base: "base accelerometer"
            case .hinge: "hinge"
            case .tabletMode: "tablet-mode switch"
            case .lidClosed: "lid switch"
            }
        }

        var option: TraceColumns {
            switch self {
            case .gyro: .gyro
            case .base: .base
            case .hinge: .hinge
            case .tabletMode: .tabletMode
            case .lidClosed: .lidClosed
            }
        }
    }

    /// The groups in the set, in the order a recording writes them.
    var groups: [Group] { Group.allCases.filter { contains($0.option) } }

    /// The optional groups as a header names them, for an error.
    static var optionalNames: String { Group.allCases.map { $0.names.joined(separator: ",") }.joined(separator: ", ") }

    /// The groups a header names after `t,x,y,z`, in its order; nil when it does not start so, names a group
    /// twice, splits one, or names an unknown column.
    static func groups(inHeader header: String) -> [Group]? {
        var names = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard names.count >= 4, Array(names.prefix(4)) == ["t", "x", "y", "z"] else { return nil }
        names.removeFirst(4)
        var found: [Group] = []
        while let first = names.first {
            guard let g = Group.allCases.first(where: { $0.names[0] == first }), !found.contains(g),
                  names.count >= g.names.count, Array(names.prefix(g.names.count)) == g.names else { return nil }
            found.append(g)
            names.removeFirst(g.names.count)
        }
        return found
    }
}
