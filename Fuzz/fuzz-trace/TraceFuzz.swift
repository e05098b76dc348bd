import FuzzSupport
import RotationEngine
import RotationProtocol

/// Fuzzes `TraceFormat.parse`, which reads the traces given to `--replay`.
///
/// Checks: parsing never traps; every sample it returns is finite, in time order, with a gyroscope reading
/// only under the gyroscope header; written out as `--record` writes it, the trace parses again to as many
/// samples with the same values (to the six decimals written).
@main
enum TraceFuzz {
    static func main() { FuzzInput.main(test) }

    static func test(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let samples = try? TraceFormat.parse(text) else { return }
        let columns: TraceColumns = samples.contains { $0.angularVelocity != nil } ? .gyro : []
        var last = -Double.infinity
        for s in samples {
            precondition(s.time.isFinite && s.time >= last, "time \(s.time) after \(last)")
            precondition(finite(s.acceleration) && (s.angularVelocity.map(finite) ?? true), "a value is not finite: \(s)")
            last = s.time
        }
        var out = TraceFormat.header(columns) + "\n"
        for s in samples { out += TraceFormat.line(for: s, columns: columns) + "\n" }
        let again: [Sample]
        do { again = try TraceFormat.parse(out) } catch { fatalError("the written trace does not parse: \(error)") }
        precondition(again.count == samples.count, "\(again.count) samples written back, \(samples.count) read")
        for (a, b) in zip(samples, again) {
            precondition(close(a.time, b.time) && close(a.acceleration, b.acceleration), "\(a) became \(b)")
            precondition((a.angularVelocity == nil) == (b.angularVelocity == nil), "\(a) became \(b)")
            if let x = a.angularVelocity, let y = b.angularVelocity { precondition(close(x, y), "\(a) became \(b)") }
        }
    }

    static func finite(_ v: Vector3) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }

    /// Equal to the six decimals a trace line carries, relative to large values.
    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 0.5e-6 + 1e-12 * max(abs(a), abs(b)) }
    static func close(_ a: Vector3, _ b: Vector3) -> Bool { close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z) }
}
