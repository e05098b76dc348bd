import Foundation
import Testing
import TestSupport

/// The capture modes: a polled accelerometer, a buffered one, a buffer that stays or goes silent, and a sensor
/// opened only while a client listens.
extension LiveSensorTests {
    @Test("a polled accelerometer: raw values changed at run time turn the published rotation")
    func polledValuesChangeAtRunTime() async throws {
        let r = try await Testbed.run(devices: ["polled.umockdev"], steps: [
            .start,
            .wait(.stdout(Self.normal)),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
            .set("iio:device0", ["in_accel_x_raw": -523, "in_accel_y_raw": 0, "in_accel_z_raw": 5]),
            .wait(.stdout(Self.bottomUp)),
            .alive,
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270, 180], "\(r.transcript)")
        #expect(r.stderr.contains { $0.hasPrefix("rotationd: info: using iio:device0 (accel_3d) as the display accelerometer, polled") },
                "\(r.transcript)")
    }

    @Test("a buffered accelerometer: scans written into its device node are decoded; trigger, frequency and FIFO batch are set")
    func bufferedScansThroughThePTY() async throws {
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .wait(.stdout(Self.normal)),
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .wait(.stdout(Self.rightUp)),
            .expectFile("sys/bus/iio/devices/iio:device0/trigger/current_trigger", "accel_3d-dev0"),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "50"),
            // One scan per wake-up while the device moves (`movingWakeInterval`), with room for four.
            .expectFile("sys/bus/iio/devices/iio:device0/buffer/watermark", "1"),
            .expectFile("sys/bus/iio/devices/iio:device0/buffer/length", "4"),
            .expectFile("sys/bus/iio/devices/iio:device0/scan_elements/in_timestamp_en", "1"),
            .alive,
        ], arguments: ["--print", "--rate", "30"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(r.stderr.contains { $0.contains("as the display accelerometer, buffered") }, "\(r.transcript)")
        #expect(!r.fellBackToPollingUnprompted(node), "fell back to polling:\n\(r.transcript)")
        // Besides rotationd's own lines, only libiio's notice that the buffer is read without mmap() may appear.
        #expect(r.stderr.allSatisfy { $0.hasPrefix("rotationd: ") || $0 == "WARNING: High-speed mode not enabled" },
                "\(r.transcript)")
    }

    @Test("a buffered device whose buffer stays silent for 500 ms is polled instead")
    func silentBufferFallsBackToPolling() async throws {
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .start,
            .wait(.stderr("the buffer delivered nothing within 500 ms; polling in_accel_\\*_raw at 50.0 Hz instead")),
            .set("iio:device0", Self.onda),
            .wait(.stdout(Self.rightUp)),
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [270], "\(r.transcript)")
    }

    @Test("a buffer that goes silent after delivering is polled instead, and the rotation keeps following the device")
    func bufferSilentLaterFallsBackToPolling() async throws {
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .wait(.stdout(Self.normal)),
            .feedStop(node),
            .set("iio:device0", Self.onda),
            .wait(.stderr("iio:device0: the buffer went silent for 500 ms; polling in_accel_\\*_raw at 50.0 Hz instead")),
            .wait(.stdout(Self.rightUp)),
            .alive,
        ], arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 270], "\(r.transcript)")
        #expect(!r.stdout.contains { $0.contains("\"sensor\":\"lost\"") }, "\(r.transcript)")
    }

    @Test("with --serve the sensor is opened only while a client is connected, and sampling resumes for the next one")
    func samplesOnlyWhileSubscribed() async throws {
        let socket = "/tmp/rotationd-ondemand-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let enable = "sys/bus/iio/devices/iio:device0/buffer/enable"
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            // Serving, and for half a second more (a time, not a wait), without having touched the sensor.
            .wait(.stderr("serving on ")),
            .sleep(0.5),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "10"),
            .connect(socket),
            .wait(.socket(Self.normal)),
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "50"),
            .expectFile(enable, "1"),
            .disconnect,
            // The last client left: the buffer is closed again.
            .waitFile(enable, "0"),
            // A client that connects while the service is still going idle is greeted with the state from
            // before, ok; sampling starts again in any case.
            .connect(socket),
            .wait(.socket("\"sensor\":\"ok\"")),
            .waitFile(enable, "1"),
            // Sampling really runs again: a new pose is published.
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .wait(.socket(Self.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("error") }, "\(r.transcript)")
        let rotations = r.socket(2).compactMap { $0["rotation"] as? Int }
        #expect(rotations.last == 270, "\(r.transcript)")
    }

    @Test("a live service is idle without clients; after the last client leaves it forgets the pose, so a pose changed meanwhile is what the next client gets")
    func idleForgetsThePose() async throws {
        let socket = "/tmp/rotationd-idle-pose-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let node = "/dev/iio:device0"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .feed(node, format: "<hhhxxq", values: [523, 13, 5], hz: 50),
            .start,
            .connect(socket),
            .wait(.socket(Self.normal)),
            // The emulated device node is a PTY that would queue scans written while the buffer is off (a
            // kernel buffer discards them), so the feeder pauses while nobody listens.
            .feedStop(node),
            .disconnect,
            .wait(.stderr("sampling stopped in")),
            // Turned right edge up while nobody listened.
            .feed(node, format: "<hhhxxq", values: [8, 521, -67], hz: 50),
            .connect(socket),
            .wait(.socket(Self.rightUp)),
            .alive,
        ], arguments: ["--serve", "--socket", socket, "--verbose"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        // Stopping runs on the server's event loop, so it must be prompt: the pending buffer read is cancelled.
        // Left pending, the read would end only when the buffer had been silent for 500 ms (the feeder stopped
        // just before); the bound (`Tolerance.samplingStop`) is half of that, so a busy machine delaying the
        // sensor thread's exit is not mistaken for a read that was not cancelled.
        let stopLine = try #require(r.stderr.first { $0.contains("sampling stopped in") }, "\(r.transcript)")
        let ms = Int(stopLine.split(separator: " ").dropLast().last ?? "") ?? .max
        #expect(ms < Int(Tolerance.samplingStop * 1000), "\(stopLine)")
        for n in [1, 2] {
            let messages = r.socket(n)
            let hello = try #require(messages.first, "\(r.transcript)")
            #expect(hello["type"] as? String == "hello" && hello["sensor"] as? String == "iio:device0 (accel_3d)",
                    "connection \(n): \(hello)")
            let states = messages.filter { $0["type"] as? String == "state" }
            // First the idle state without a rotation, then ok, then the pose as it is now.
            let first = try #require(states.first, "\(r.transcript)")
            #expect(first["sensor"] as? String == "idle" && first["rotation"] is NSNull, "connection \(n): \(first)")
            let afterIdle = states.dropFirst()
            #expect(afterIdle.first?["sensor"] as? String == "ok", "connection \(n): \(states)")
            let firstRotation = afterIdle.first { !($0["rotation"] is NSNull) }?["rotation"] as? Int
            #expect(firstRotation == (n == 1 ? 0 : 270), "connection \(n): \(states)")
            #expect(afterIdle.allSatisfy { $0["sensor"] as? String == "ok" }, "connection \(n): \(states)")
        }
        // The first connection saw the service go idle only after it left, so it never saw that state again.
        #expect(!r.socket(2).contains { ($0["rotation"] as? Int) == 0 }, "the stale rotation was served:\n\(r.transcript)")
    }

    @Test("with --serve and no client the sensor is never opened")
    func idleWithoutSubscriber() async throws {
        let socket = "/tmp/rotationd-idle-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let r = try await Testbed.run(devices: ["buffered.umockdev"], steps: [
            .start,
            // Serving, and for a second more (a time, not a wait).
            .wait(.stderr("serving on ")),
            .sleep(1.0),
            .alive,
            // Untouched since the fixture wrote it: no buffer, no sampling frequency, no trigger.
            .expectFile("sys/bus/iio/devices/iio:device0/sampling_frequency", "10"),
            .expectFile("sys/bus/iio/devices/iio:device0/trigger/current_trigger", ""),
        ], arguments: ["--serve", "--socket", socket])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(!r.stderr.contains { $0.contains("using iio:device0") }, "\(r.transcript)")
    }
}
