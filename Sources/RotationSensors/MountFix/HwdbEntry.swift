/// One entry of a hwdb file for one sensor, in the form of systemd's 60-sensor.hwdb: a comment naming the machine
/// and the sensor, the match line, and the properties, each property line starting with one space.
public struct HwdbEntry: Sendable, Hashable {
    /// The sensor's key, whose match line the entry is written with.
    public var key: HwdbKey
    /// The mount matrix.
    public var matrix: MountMatrix
    /// Where the sensor sits: a base sensor's entry says `ACCEL_LOCATION=base`.
    public var location: SensorDescription.Location
    /// The sensor's driver name, for the comment.
    public var sensorName: String
    /// Other properties an earlier entry for the sensor gave it (such as `ANGLVEL_MOUNT_MATRIX=...`), kept.
    public var kept: [String] = []

    /// An entry giving the sensor of `key` (named `sensorName`, at `location`) the mount matrix `matrix`.
    public init(key: HwdbKey, matrix: MountMatrix, location: SensorDescription.Location, sensorName: String) {
        self.key = key
        self.matrix = matrix
        self.location = location
        self.sensorName = sensorName
    }

    /// The properties, `NAME=VALUE` each: the matrix, the location of a base sensor, then those kept.
    public var properties: [String] {
        var out = ["ACCEL_MOUNT_MATRIX=\(matrix)"]
        if location == .base { out.append("ACCEL_LOCATION=base") }
        let names = Set(out.map(Self.propertyName))
        return out + kept.filter { !names.contains(Self.propertyName($0)) }
    }

    /// The entry's lines, without line ends: the comment, the match line, each property after one space.
    public var lines: [String] {
        let machine = key.machine ?? "this machine"
        let what = location == .base ? "keyboard base" : "display"
        return ["# \(machine): \(what) accelerometer (\(sensorName)), from rotationd --fix-mount", key.match]
            + properties.map { " " + $0 }
    }

    /// The entry as text, each line ended.
    public var text: String { lines.map { $0 + "\n" }.joined() }

    /// The name of a `NAME=VALUE` property line (spaces around it removed).
    static func propertyName(_ line: String) -> String {
        String(line.split(separator: "=", maxSplits: 1).first ?? "").trimmingSpaces
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
