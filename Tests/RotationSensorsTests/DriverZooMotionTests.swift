import Foundation
import RotationEngine
import RotationSensors
import Testing
import TestSupport

/// The zoo's sensors watching for motion themselves while the device is still: each driver's event armed from the
/// files its kernel source creates (`Tests/fixtures/zoo/*.umockdev`), raised by the emulated hardware in the
/// driver's units (`umockdev-driver.py`, `MotionEvent`) through the event descriptor the emulated kernel (`Tests/Testbed/kernel`) hands out.
extension DriverZooTests {
    /// The fixtures whose display accelerometer has a motion event and the interrupt line it needs.
    static let eventDrivers = ["bmc150-dual", "kxcjk-1013", "inv_mpu6050", "bmi323", "st_lsm6dsx", "mma8452"]

    /// A trace of the poses of `zoo/four-poses.csv`, upright first, each held for the given seconds, with the
    /// trace's own quarter turns between them (0.65 s each).
    struct PosesTrace {
        /// The CSV text.
        var text: String
        /// When each turn ends, s into the trace.
        var turnEnds: [Double] = []
        /// The trace's length in s.
        var length = 0.0

        init(holds: [Double]) throws {
            let csv = try String(contentsOf: Testbed.fixtures.appendingPathComponent("zoo/four-poses.csv"), encoding: .utf8)
            let lines = csv.split(separator: "\n")
            let rows = lines.dropFirst().map { line -> (Double, Substring) in
                let comma = line.firstIndex(of: ",")!
                return (Double(line[..<comma])!, line[comma...])
            }
            func window(_ from: Double, _ to: Double) -> [(Double, Substring)] {
                rows.filter { $0.0 >= from && $0.0 < to }.map { ($0.0 - from, $0.1) }
            }
            var out = [String(lines[0])]
            var t = 0.0
            for (k, hold) in holds.enumerated() {
                // Pose k is held from 3.6 k + 0.05 (after its turn) to 3.6 k + 2.95 (before the next); played
                // again and again for `hold` seconds.
                let start = 3.6 * Double(k) + (k > 0 ? 0.05 : 0)
                let pose = window(start, 3.6 * Double(k) + 2.95)
                let span = 3.6 * Double(k) + 2.95 - start
                var done = 0.0
                while done < hold {
                    for (dt, rest) in pose where done + dt < hold { out.append(String(format: "%.4f", t + done + dt) + rest) }
                    done += span
                }
                t += hold
                if k + 1 < holds.count {
                    // The turn to pose k + 1: from 0.05 s into this window to 0.65 s.
                    for (dt, rest) in window(3.6 * Double(k) + 2.95, 3.6 * Double(k) + 3.65) {
                        out.append(String(format: "%.4f", t + dt) + rest)
                    }
                    turnEnds.append(t + 0.65)
                    t += 0.7
                }
            }
            text = out.joined(separator: "\n") + "\n"
            length = t
        }

        /// Writes the trace to a temporary file; the caller removes it.
        func write() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-poses-\(UUID().uuidString).csv")
            try text.write(to: url, atomically: false, encoding: .utf8)
            return url
        }
    }

    /// The sidecar's description of a device's motion event and what a run must put back.
    struct MotionFixture {
        /// The enable files of the display accelerometer's event, relative to its directory.
        var enables: [String]
        /// The steps checking every file is put back.
        var restoreSteps: [Step]
        /// Whether a base sensor is read once a second while the display sleeps on its event
        /// (`CapturedSensor.foldReadInterval`): its own event never reaches the host.
        var foldReads: Bool

        init(_ name: String) throws {
            let sidecar = try Sidecar.zoo(name)
            let events = try #require(sidecar.devices["iio:device0"]?.first?.events, "\(name) describes no motion event")
            enables = events.enableFiles
            restoreSteps = try sidecar.expectation().restoreSteps
            foldReads = sidecar.hasBase
        }
    }

    /// The monotonic time the trace started playing.
    static func playStart(_ r: Testbed.Result) -> Double {
        r.results.playStarted?.at ?? .nan
    }

    @Test("each driver with a motion event: while the device is still the event is armed and the sensor thread sleeps (no wake-up in 3 s; one a second to read the base of a convertible, bmc150-dual), the turn after 12 s still is published within 2 s of its end, no write is refused, and every setting is put back (events, thresholds, periods, frequencies)",
          arguments: eventDrivers)
    func motionEventsWhileStill(driver: String) async throws {
        let fixture = try MotionFixture(driver)
        let trace = try PosesTrace(holds: [12, 6])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        var steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                              .waitFile("sys/bus/iio/devices/iio:device0/\(fixture.enables[0])", "1", within: Tolerance.slowReply),
                              .asleep(thread: "rotationd-iio", seconds: 3, most: fixture.foldReads ? 4 : 0),
                              .wait(.stdout("\"rotation\":90,", within: Tolerance.tracePose)), .stop]
        steps += fixture.restoreSteps
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90], "\(r.transcript)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnAwake } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.kernelWrites.map(\.description).contains("iio:device0 dev/iio:device0 \"IIO_GET_EVENT_FD_IOCTL\" ok"), "\(r.kernelWrites)")
        #expect(r.kernelWrites.map(\.description).contains("iio:device0 \(fixture.enables[0]) \"1\" ok"), "\(r.kernelWrites)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
        // Only what the sidecar expects (st_lsm6dsx: its gyroscope's raw reads are too slow to poll).
        let expected = try Sidecar.zoo(driver).expectation().warnings
        let warnings = r.stderr.filter { $0.hasPrefix("rotationd: warning") || $0.hasPrefix("rotationd: error") }
        #expect(warnings.count == expected.count && expected.allSatisfy { w in warnings.contains { $0.contains(w) } }, "\(warnings)")
    }

    /// Runs `rotationd --print` on `driver` while a trace holds the device upright `holds[0]` s, turns it a quarter
    /// and holds it `holds[1]` s, until the turn is published; then stops it and reads back what `fixture` restores.
    static func holdTurnHold(_ driver: String, _ fixture: MotionFixture, holds: [Double]) async throws
        -> (Testbed.Result, PosesTrace) {
        let trace = try PosesTrace(holds: holds)
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                              .wait(.stdout("\"rotation\":90,", within: Tolerance.tracePose)), .stop] + fixture.restoreSteps
        return (try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print"]), trace)
    }

    @Test("a sensor whose driver registered no trigger or buffer (no interrupt line) has event files that can never fire: they are left alone, with one line saying so, and the sensor is read at the still pace, so the turn after a still spell comes as fast as before",
          arguments: ["bmc150-noirq", "st_lsm6dsx-noirq"])
    func motionEventsWithoutInterruptLine(driver: String) async throws {
        let fixture = try MotionFixture(driver)
        let (r, trace) = try await Self.holdTurnHold(driver, fixture, holds: [6, 4])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let said = r.stderr.filter { $0.contains("not watching for motion with its") }
        #expect(said.count == 1 && said[0].hasPrefix("rotationd: info: iio:device0 ("), "\(r.transcript)")
        #expect(!r.kernelWrites.contains { $0.file.contains("events/") || $0.value == "IIO_GET_EVENT_FD_IOCTL" }, "\(r.kernelWrites)")
        let turnEnd = Self.playStart(r) + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnAwake } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }

    @Test("a polled sensor whose raw read sleeps a few sample periods in the driver (st_lsm6dsx without an interrupt line) is polled at the highest sampling frequency it lists, so each read sleeps a few ms, and while still reads one axis, once per read interval at most; the turn after the still spell comes within 2 s of its end, and the frequency is put back")
    func motionWhileStillOnSlowRawReads() async throws {
        let driver = "st_lsm6dsx-noirq"
        let fixture = try MotionFixture(driver)
        // The highest choice of the driver's table (the fixture's "values-up" rule), and how many of its periods a
        // raw read sleeps ("raw-periods").
        let sidecar = try Sidecar.zoo(driver)
        let top = try #require(sidecar.rule("values-up", "iio:device0", "sampling_frequency")?.last.flatMap { Double($0) })
        let periods = try #require(sidecar.rule("raw-periods", "iio:device0")?.first.flatMap { Double($0) })
        let (r, trace) = try await Self.holdTurnHold(driver, fixture, holds: [8, 4])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        let raised = "iio:device0 sampling_frequency \"\(FrequencyPlan.text(top))\" ok"
        #expect(r.kernelWrites.map(\.description).contains(raised), "\(r.kernelWrites)")
        // The accelerometer's reads that slept in the driver, from 4 s into the still spell, or from the line that
        // says the still pace began (after the reads that time the driver again) when a loaded machine brought it
        // later, until 0.2 s before the turn starts.
        let start = Self.playStart(r)
        let paced = try #require(r.results.output("stderr").first { $0.line.contains("one axis at a time while still") }?.at,
                                 "\(r.transcript)")
        let from = max(start + 4, paced), to = start + trace.turnEnds[0] - 0.65 - 0.2
        try #require(to - from >= 2, "the still pace began \(paced - start) s into the trace")
        let still = from...to
        let reads = r.kernelReads.filter { $0.device == "iio:device0" && still.contains($0.at) }
        let span = still.upperBound - still.lowerBound
        let interval = SamplingPolicy.Configuration().slowInterval
        #expect(!reads.isEmpty && reads.count <= Int(span / interval) + 1, "\(reads.count) reads in \(span) s while still: \(r.kernelReads)")
        let axes = Set(reads.map { $0.file }).sorted()
        #expect(axes.count == 1, "axes read while still: \(axes)")
        let slept = periods * 1000 / top
        let slow = reads.filter { abs($0.sleptMs - slept) >= 0.1 }
        #expect(slow.isEmpty, "each read should sleep \(slept) ms (\(periods) periods at \(top) Hz): \(slow.map { $0.sleptMs })")
        let turnEnd = start + trace.turnEnds[0]
        let turn = r.published(rotation: 90, after: turnEnd - 1)
        #expect(turn.map { $0 - turnEnd < Tolerance.turnAwake } == true, "the turn came \(turn.map { $0 - turnEnd } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }

    @Test("a sensor whose motion event never arrives (its buffer streams but the event is lost; bmc150 on a board wiring INT2, whose interrupt never reaches the host, which rotationd cannot find out without enabling the buffer, a refusal to other readers): the event is armed, the safety read finds the device turned with no event, rotationd says so once and reads the sensor at the still pace from then on, never arming it again; the next turn comes within 2 s of its end, and every setting is put back",
          arguments: ["bmc150-lostevent", "bmc150-int2"])
    func motionEventsThatNeverArrive(driver: String) async throws {
        let fixture = try MotionFixture(driver)
        let trace = try PosesTrace(holds: [6, 16, 5])
        let file = try trace.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let steps: [Step] = [.start, .play(file.path, seconds: trace.length - 0.2), .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose)),
                              .wait(.stdout("\"rotation\":90,", within: Tolerance.longTracePose)), .wait(.stdout("\"rotation\":180,", within: Tolerance.longTracePose)), .stop]
            + fixture.restoreSteps
        let r = try await Testbed.run(devices: ["zoo/\(driver).umockdev"], steps: steps, arguments: ["--print"])
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(r.rotations == [0, 90, 180], "\(r.transcript)")
        let said = r.stderr.filter { $0.contains("did not report it") }
        #expect(said.count == 1 && said[0].hasPrefix("rotationd: warning: iio:device0 (BMA250E): the device moved and its bmc150-accel motion event"),
                "\(r.transcript)")
        let arms = r.kernelWrites.filter { $0.description == "iio:device0 \(fixture.enables[0]) \"1\" ok" }
        #expect(arms.count == 1, "armed \(arms.count) times: \(r.kernelWrites)")
        let second = Self.playStart(r) + trace.turnEnds[1]
        let turn = r.published(rotation: 180, after: second - 1)
        #expect(turn.map { $0 - second < Tolerance.turnAwake } == true, "the second turn came \(turn.map { $0 - second } ?? .nan) s after its end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }
}
