import RotationProtocol
import RotationSystem

/// An accelerometer read through its raw attributes (`in_accel_{x,y,z}_raw`), in its own frame: offset and scale
/// applied, no mount matrix. For the guided mount fix, which works out the matrix.
///
/// Raw reads hold nothing and write nothing, so they work beside rotationd and iio-sensor-proxy, which keep a
/// device's buffer only where its driver still answers raw reads (`CapturePlan`). Where another program runs the
/// buffer of a driver that refuses raw reads meanwhile, a read fails with EBUSY.
public struct RawAccelerometer: Sendable {
    /// The sensor read.
    public let sensor: SensorDescription
    /// The raw attribute files of x, y and z.
    public let paths: [String]

    /// The sensor's raw attributes; nil when it has none for one of its axes.
    public init?(_ sensor: SensorDescription) {
        let files = DeviceFiles(id: sensor.id)
        let names = ["x", "y", "z"].compactMap { files.locate("raw", type: "accel", axis: $0) }
        guard names.count == 3, names.allSatisfy({ $0.hasSuffix("_raw") && $0.count > 4 }) else { return nil }
        self.sensor = sensor
        paths = names.map(files.path)
    }

    /// One reading in the sensor's frame, m/s² (after the driver's scale), or the read that failed.
    public func read() throws(SensorError) -> Vector3 {
        var raw = [0.0, 0.0, 0.0]
        for (i, path) in paths.enumerated() {
            switch SysfsNumber.read(path) {
            case .success(let v): raw[i] = v
            case .failure(.system(let e)):
                throw .io(SystemError(operation: "read", path: path, errno: e, fix: SensorError.sysfsFix(e)))
            case .failure(.garbage(let text)):
                throw .badValue(path: path, value: text, expected: "a number")
            }
        }
        let c = sensor.calibration
        return Vector3((raw[0] + c.offset.x) * c.scale.x, (raw[1] + c.offset.y) * c.scale.y, (raw[2] + c.offset.z) * c.scale.z)
    }
}
