/// A three-component vector in the device frame.
///
/// The frame is iio-sensor-proxy's after the mount matrix: x points to the device's left edge, y to its
/// bottom edge and z out of the screen. An upright device reads about (0, −g, 0).
public struct Vector3: Sendable, Hashable {
    /// The component along the device's x axis (towards its left edge).
    public var x: Double
    /// The component along the device's y axis (towards its bottom edge).
    public var y: Double
    /// The component along the device's z axis (out of the screen).
    public var z: Double

    /// Creates a vector from its three components.
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(0, 0, 0)

    /// The Euclidean length.
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// True when every component is finite and the vector is not zero.
    @inlinable public var isUsable: Bool {
        x.isFinite && y.isFinite && z.isFinite && (x != 0 || y != 0 || z != 0)
    }

    /// Component-wise sum.
    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    /// Component-wise difference.
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    /// Scales every component by `k`.
    @inlinable public static func * (a: Vector3, k: Double) -> Vector3 { Vector3(a.x * k, a.y * k, a.z * k) }
    /// The dot product.
    @inlinable public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    /// The cross product.
    @inlinable public func cross(_ b: Vector3) -> Vector3 {
        Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }
}
