/// The `sample` message: one raw calibrated sensor reading, for clients subscribed to `samples`.
public struct SampleMessage: Sendable, Hashable {
    /// The reading.
    public var sample: Sample
    /// How many samples this subscriber did not receive before this one, because it read too slowly.
    public var missed: Int

    /// Creates a sample message.
    public init(sample: Sample, missed: Int = 0) {
        self.sample = sample
        self.missed = missed
    }

    /// Decodes a `sample` object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard json["type"]?.stringValue == "sample",
              let t = json["t"]?.numberValue,
              let x = json["x"]?.numberValue, let y = json["y"]?.numberValue, let z = json["z"]?.numberValue
        else { return nil }
        var gyro: Vector3?
        if let gx = json["gx"]?.numberValue, let gy = json["gy"]?.numberValue, let gz = json["gz"]?.numberValue {
            gyro = Vector3(gx, gy, gz)
        }
        var sample = Sample(time: t, acceleration: Vector3(x, y, z), angularVelocity: gyro)
        if let bx = json["bx"]?.numberValue, let by = json["by"]?.numberValue, let bz = json["bz"]?.numberValue {
            sample.base = Vector3(bx, by, bz)
        }
        sample.hinge = json["hinge"]?.numberValue
        sample.tabletMode = json["tablet_mode"]?.boolValue
        sample.lidClosed = json["lid_closed"]?.boolValue
        self.init(sample: sample, missed: json["missed"]?.intValue ?? 0)
    }

    /// The message as one JSON line, without the trailing newline.
    ///
    /// Time has 4 decimals (0.1 ms), acceleration 4 (m/s²), angular velocity 5 (rad/s) and the hinge 2 (degrees);
    /// the gyroscope's, the base's, the hinge's and the switches' members appear only when the sample has that
    /// reading.
    public var jsonLine: String {
        var w = JSONWriter()
        w.add("type", "sample")
        w.add("t", sample.time, decimals: 4)
        w.add("x", sample.acceleration.x, decimals: 4)
        w.add("y", sample.acceleration.y, decimals: 4)
        w.add("z", sample.acceleration.z, decimals: 4)
        if let g = sample.angularVelocity {
            w.add("gx", g.x, decimals: 5)
            w.add("gy", g.y, decimals: 5)
            w.add("gz", g.z, decimals: 5)
        }
        if let b = sample.base {
            w.add("bx", b.x, decimals: 4)
            w.add("by", b.y, decimals: 4)
            w.add("bz", b.z, decimals: 4)
        }
        if let h = sample.hinge { w.add("hinge", h, decimals: 2) }
        if let mode = sample.tabletMode { w.add("tablet_mode", mode) }
        if let closed = sample.lidClosed { w.add("lid_closed", closed) }
        if missed > 0 { w.add("missed", missed) }
        return w.object
    }
}
