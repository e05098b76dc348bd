import Foundation
import Testing
import RotationEngine
import RotationProtocol
@testable import RotationSensors

/// What `--record` writes, from the samples as the capture delivers them (`TraceRecorder`).
@Suite("Trace recorder: the columns of the whole recording")
struct TraceRecorderTests {
    /// A recorder writing to a new scratch file, and the file's path.
    static func recorder() throws -> TraceRecorder {
        try TraceRecorder(path: FileManager.default.temporaryDirectory
            .appendingPathComponent("rotationd-record-\(UUID().uuidString).csv").path)
    }

    @Test("a reading the first sample lacks (a hinge sensor that cannot tell yet, a base read that failed) still gets its column, and the trace replays with it")
    func laterReadingsKeepTheirColumns() throws {
        let r = try Self.recorder()
        defer { try? FileManager.default.removeItem(atPath: r.path) }
        for i in 0..<60 {
            var s = Sample(time: Double(i) * 0.02, acceleration: Vector3(0, -9.81, 0))
            if i >= 3, i % 5 == 3 {
                s.base = Vector3(0, -9.81, 0)
                s.hinge = 110
            }
            r.record(s)
        }
        r.finish()
        let text = try String(contentsOfFile: r.path, encoding: .utf8)
        #expect(text.hasPrefix("t,x,y,z,bx,by,bz,hinge\n"), "\(text.prefix(200))")
        let samples = try TraceFormat.parse(text)
        #expect(samples.count == 60)
        #expect(samples.filter { $0.hinge == 110 && $0.base != nil }.count == 12)
    }

    @Test("a recording shorter than the wait for its header is written whole when it ends")
    func shortRecordingWrittenAtTheEnd() throws {
        let r = try Self.recorder()
        defer { try? FileManager.default.removeItem(atPath: r.path) }
        for i in 0..<5 { r.record(Sample(time: Double(i) * 0.02, acceleration: Vector3(0, -9.81, 0))) }
        #expect(try String(contentsOfFile: r.path, encoding: .utf8).isEmpty)
        r.finish()
        r.finish()
        #expect(try TraceFormat.parse(String(contentsOfFile: r.path, encoding: .utf8)).count == 5)
    }
}
