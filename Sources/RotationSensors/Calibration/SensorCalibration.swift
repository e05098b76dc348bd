import RotationProtocol

/// How raw readings of one three-axis sensor become values in the device frame, and where each part came from.
///
/// `device = matrix × ((raw + offset) ⊙ scale)`, component by component inside the brackets.
public struct SensorCalibration: Sendable, Hashable {
    /// The per-axis scale (m/s² or rad/s per count).
    public var scale: Vector3
    /// The per-axis offset, in counts, added before scaling.
    public var offset: Vector3
    /// The mount matrix.
    public var matrix: MountMatrix
    /// The attribute each scale came from (`in_accel_x_scale`, `in_accel_scale`, or `default`), per axis.
    public var scaleSources: [String]
    /// The attribute each offset came from, per axis.
    public var offsetSources: [String]
    /// Where the mount matrix came from, such as `udev ACCEL_MOUNT_MATRIX` or `identity`.
    public var matrixSource: String

    /// Creates a calibration.
    public init(scale: Vector3, offset: Vector3 = .zero, matrix: MountMatrix = .identity,
                scaleSources: [String] = ["default", "default", "default"],
                offsetSources: [String] = ["default", "default", "default"], matrixSource: String = "identity") {
        self.scale = scale
        self.offset = offset
        self.matrix = matrix
        self.scaleSources = scaleSources
        self.offsetSources = offsetSources
        self.matrixSource = matrixSource
    }

    /// Turns one raw reading (in counts) into the device frame.
    @inlinable public func apply(raw: Vector3) -> Vector3 {
        let scaled = Vector3((raw.x + offset.x) * scale.x, (raw.y + offset.y) * scale.y, (raw.z + offset.z) * scale.z)
        return matrix.apply(scaled)
    }
}
