import Foundation
import Testing
import TestSupport
@testable import RotationSensors

/// The sampling policy on live sensors under umockdev: a polled sensor is read slowly while still and at the full
/// rate from the first reading that moved; a buffered sensor is slowed down and batched, and whatever the
/// capture changed on it is put back when the last client leaves and when the service stops.
@Suite("Sampling pace under umockdev", .serialized)
struct SamplingPaceTests {
    static let subscribe = "{\"cmd\":\"subscribe\",\"events\":[\"state\",\"samples\"]}"

    /// The steps that start rotationd on the upright polled sensor, subscribe on `socket`, and wait until the sensor is
    /// read whole at the still pace.
    static func polledUntilStill(_ socket: String) -> [Step] {
        [.start,
         .connect(socket, within: Tolerance.slowReply),
         .send(subscribe),
         .wait(.socket(LiveSensorTests.normal)),
         .wait(.stderr("iio:device0: the device is still: reading it every 0\\.4 s"))]
    }

    @Test("a polled sensor is read every 0.4 s while still, however long the start-up trim takes, at the full rate from the first reading that moved, then slowly again")
    func polledPace() async throws {
        let socket = Testbed.socketPath("pace")
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: Self.polledUntilStill(socket) + [
            // Some slow reads, as many as come in 2 s (a time, not a wait).
            .sleep(2),
            .set("iio:device0", LiveSensorTests.onda),
            .wait(.stderr("iio:device0: the device moves: reading it at 50\\.0 Hz")),
            .wait(.socket(LiveSensorTests.rightUp)),
            .wait(.stderr("iio:device0: the device is still: reading it every 0\\.4 s")),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"],
           // The start-up trim at the first still reads /proc/self/smaps, which a loaded machine can make slower
           // than the engine's maxGap: the reads must go on meanwhile.
           environment: ["IIO_KERNEL_SMAPS_DELAY": "1500"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let samples = r.socket(1).filter { $0["type"] as? String == "sample" }
        let times = samples.compactMap { $0["t"] as? Double }
        #expect(times.count == samples.count)
        // Upright reads y ≈ −10 m/s²; the new pose reads x ≈ −10 m/s² (right edge up).
        guard let moved = samples.firstIndex(where: { ($0["x"] as? Double ?? 0) < -5 }) else {
            Issue.record("no sample of the new pose:\n\(r.transcript)")
            return
        }
        // 2 s at the slow pace: at least three gaps of 0.4 s (a loaded machine can only make them longer).
        let still = zip(times[..<moved].dropFirst(), times[..<moved]).map { $0 - $1 }.suffix(3)
        #expect(still.count == 3 && still.allSatisfy { $0 >= 0.35 }, "gaps before the move: \(Array(still))")
        #expect(moved + 1 < times.count && times[moved + 1] - times[moved] < 0.1,
                "the read after the first moved one came \(moved + 1 < times.count ? times[moved + 1] - times[moved] : -1) s later")
    }

    @Test("a quick polled sensor whose first raw reads are slow once (the reader preempted, or its first read faulting pages in) is still read whole every 0.4 s while still: a sensor counts as slow only when every timed read is")
    func preemptedFirstReads() async throws {
        let socket = Testbed.socketPath("pace")
        let slowReads = CapturedSensor.slowReadTries - 1
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: Self.polledUntilStill(socket) + [.alive],
                                          arguments: ["--serve", "--socket", socket, "--verbose"],
                                          rules: ["raw-delay iio:device0 \(Int(CapturedSensor.slowRawRead * 3000)) \(slowReads)"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.kernelReads.count == slowReads, "\(r.kernelReads)")
        #expect(!r.stderr.contains { $0.contains("one raw read takes") }, "\(r.transcript)")
    }

    /// Writes a trace of `seconds` upright, a slow quarter turn clockwise over 3 s (longer than a batch, so the
    /// motion outlasts the batch it starts in), then left edge up until `2 × seconds`, at 50 Hz.
    static func uprightThenLeftUp(seconds: Double) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-pace-\(UUID().uuidString).csv").path
        var text = "t,x,y,z\n"
        for i in 0..<Int(2 * seconds * 50) {
            let t = Double(i) / 50
            let angle = min(max((t - seconds) / 3, 0), 1) * Double.pi / 2
            text += String(format: "%.3f,%.3f,%.3f,0.5\n", t, 9.79 * sin(angle), -9.79 * cos(angle))
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("a buffered sensor is slowed to its lowest frequency and batched while still, brought back when it moves, and left as found when the last client leaves and on SIGTERM")
    func bufferedPaceAndRestore() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-pace-\(UUID().uuidString).sock").path
        let trace = try Self.uprightThenLeftUp(seconds: 6)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let dev = "sys/bus/iio/devices/iio:device0/"
        let r = try await Testbed.run(devices: ["paced-buffered.umockdev"], steps: [
            .feedTrace("/dev/iio:device0", trace: trace, scale: 0.019163, hz: 50, seconds: 60, burst: 5),
            .start,
            .connect(socket, within: Tolerance.slowReply),
            .wait(.socket(LiveSensorTests.normal, within: Tolerance.slowReply)),
            .wait(.stderr("iio:device0: the device is still: reading it at 12\\.5 Hz, 6 samples per wake-up", within: Tolerance.slowReply)),
            // libiio rewrites these files while it opens the buffer: wait for the settled content.
            .waitFile(dev + "sampling_frequency", "12.5"),
            .waitFile(dev + "buffer/watermark", "6"),
            .wait(.stderr("iio:device0: the device moves: reading it at 50 Hz, one sample per wake-up", within: Tolerance.tracePose)),
            .wait(.socket(LiveSensorTests.leftUp)),
            .wait(.stderr("iio:device0: the device is still: reading it at 12\\.5 Hz", within: Tolerance.slowReply)),
            .disconnect,
            .wait(.stderr("no client is connected: sampling stopped", within: Tolerance.slowReply)),
            .expectFile(dev + "sampling_frequency", "100"),
            .expectFile(dev + "buffer/watermark", "1"),
            .connect(socket, within: Tolerance.slowReply),
            .wait(.stderr("iio:device0: the device is still: reading it at 12\\.5 Hz", within: Tolerance.tracePose)),
            .waitFile(dev + "sampling_frequency", "12.5"),
            .stop,
            .expectFile(dev + "sampling_frequency", "100"),
            .expectFile(dev + "buffer/watermark", "1"),
        ], arguments: ["--serve", "--socket", socket, "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("rotationd: info: stopped") }, "\(r.transcript)")
    }

    @Test("a buffered sensor is read on while the service gives back its start-up pages at the first still, however long /proc/self/smaps takes: no gap in the samples, no restart of the engine")
    func bufferedPaceDuringTrim() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-pace-\(UUID().uuidString).sock").path
        // Upright for longer than the run lasts, even on a loaded machine (a sanitizer's build beside it).
        let trace = try Self.uprightThenLeftUp(seconds: 30)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let r = try await Testbed.run(devices: ["paced-buffered.umockdev"], steps: [
            .feedTrace("/dev/iio:device0", trace: trace, scale: 0.019163, hz: 50, seconds: 60, burst: 5),
            .start,
            .connect(socket, within: Tolerance.slowReply),
            .send(Self.subscribe),
            .wait(.socket(LiveSensorTests.normal, within: Tolerance.slowReply)),
            // The trim at the first still (not the one at start-up, "ready with no client: gave back ...").
            .wait(.stderr("^rotationd: debug: gave back [0-9]+ kB of start-up pages", within: Tolerance.tracePose)),
            // A time, not a wait: the samples go on coming, no gap as long as maxGap, in the second after the trim.
            .sleep(1),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"], environment: ["IIO_KERNEL_SMAPS_DELAY": "2000"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // Upright all along (the turn starts 30 s into the trace): read at 50 Hz, then every 80 ms in batches.
        // A gap longer than the engine's maxGap (1 s) would restart it, and the policy would read the sensor at
        // the full rate again although it never moved.
        let times = r.socket(1).filter { $0["type"] as? String == "sample" }.compactMap { $0["t"] as? Double }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(times.count > 20 && gaps.allSatisfy { $0 < 1 }, "gaps over 1 s: \(gaps.filter { $0 >= 1 })\n\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("the device moves") }, "\(r.transcript)")
    }

    @Test("when the last client leaves, the trim that follows (however long /proc/self/smaps takes) does not keep the next client waiting: it is greeted at once")
    func nextClientDuringIdleTrim() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-pace-\(UUID().uuidString).sock").path
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .connect(socket, within: Tolerance.slowReply),
            .send(Self.subscribe),
            .wait(.socket(LiveSensorTests.normal, within: Tolerance.slowReply)),
            .disconnect,
            .wait(.stderr("no client is connected: sampling stopped")),
            .connect(socket, within: Tolerance.slowReply),
            // Each read of /proc/self/smaps takes 3 s here: a trim on the socket server's thread would hold the
            // greeting that long.
            .wait(.socket("\"type\":\"hello\"", within: Tolerance.greeting)),
            .send(Self.subscribe),
            .wait(.socket(LiveSensorTests.normal)),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"], environment: ["IIO_KERNEL_SMAPS_DELAY": "3000"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
    }
}
