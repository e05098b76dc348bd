import Foundation
import Testing
import TestSupport

/// A tablet turned while the system sleeps: the device is held upright and still until the service has settled
/// (the still pace, a sensor's motion event armed), then the system is suspended for 3 s (`umockdev-driver.py`'s
/// `suspend` step: the service is stopped, its CLOCK_MONOTONIC held back by the time slept while CLOCK_BOOTTIME is
/// not, and a CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET is cancelled at the resume, by
/// the emulated kernel (`Tests/Testbed/kernel`)), and while asleep the device is turned a quarter or a half and held. The new rotation must be
/// published within 0.5 s of the wake.
///
/// Traces: `zoo/sleep-turn-90.csv` and `zoo/sleep-turn-180.csv` (`scripts/make-sleep-trace.py`): upright until
/// 6.5 s, turned over 0.65 s a quarter, held until 15 s. The sleep starts 6 s into the trace, once the sensor's
/// motion event is armed (the still pace comes about a second after the first rotation); a sleep that a loaded
/// machine brings late holds the trace at 6 s until it begins, so the turn is always made asleep.
@Suite("Suspend and resume: a device turned while the system sleeps")
struct SleepWakeTests {
    /// One sensor and how it comes back from the sleep (the `suspend` step's options).
    struct SleptSensor: CustomTestStringConvertible, Sendable {
        /// The fixture, `Tests/fixtures/zoo/NAME.umockdev`.
        var fixture: String
        /// The `suspend` step's options, but for the time the sleep starts.
        var options: Suspend
        var testDescription: String

        init(_ fixture: String, options: Suspend = Suspend(), _ description: String? = nil) {
            self.fixture = fixture
            self.options = options
            testDescription = description ?? fixture
        }

        /// The options as an object, with the time the sleep starts.
        var suspendOptions: Suspend {
            var o = options
            o.at = SleepWakeTests.asleepAt
            return o
        }
    }

    /// Every kind of sensor: a motion event kept, a hub silent after the wake or wedged until enabled again, a
    /// polled sensor.
    static let sensors: [SleptSensor] = [
        SleptSensor("bmc150-dual"), SleptSensor("kxcjk-1013"), SleptSensor("inv_mpu6050"), SleptSensor("st_lsm6dsx"),
        SleptSensor("hid-sensor", options: Suspend(hub: .silent(milliseconds: 300)), "hid-sensor (silent 300 ms)"),
        SleptSensor("hid-sensor", options: Suspend(hub: .wedged), "hid-sensor (wedged)"),
        SleptSensor("mxc4005-noirq", options: Suspend(powered: true), "mxc4005-noirq (polled)"),
    ]

    /// The sensors with a motion event, which lose its configuration over the sleep: a slope interrupt (bmc150) and
    /// a wake-up function behind a sensor that powers off with its buffer (st_lsm6dsx).
    static let lostEvents: [SleptSensor] = ["bmc150-dual", "st_lsm6dsx"].map {
        SleptSensor($0, options: Suspend(events: .lost), "\($0) (events lost)")
    }

    /// When the sleep starts, s into the trace; how long it lasts; when the turn starts, and how long a quarter
    /// takes (`make-sleep-trace.py`).
    static let asleepAt = 6.0
    static let sleepSeconds = 3.0
    static let turnStart = 6.5
    static let quarter = 0.65
    /// How long the trace is played.
    static let traceSeconds = 14.8
    /// The longest a wake may take to show the new rotation.
    static let wakeLatency = Tolerance.wakeToPublish

    /// Runs `rotationd --print` on the sensor while the trace turning it by `degrees` plays: once rotation 0 is
    /// published (and the sensor's motion event armed), the system sleeps from `asleepAt` into the trace for 3 s (with
    /// `sleep`), then the run waits for the new rotation. Returns the run and the wake→publish time (nil: not
    /// published before the trace ended). With `late`, the sleep step comes that many seconds after its time, as
    /// on a machine too loaded to run the driver.
    static func run(_ sensor: SleptSensor, degrees: Int, sleep: Bool, late: Double = 0) async throws -> (Testbed.Result, Double?) {
        var steps: [Step] = [.start, .play("zoo/sleep-turn-\(degrees).csv", seconds: traceSeconds),
                              .wait(.stdout("\"rotation\":0,", within: Tolerance.tracePose))]
        // The enable file of the display accelerometer's motion event, if the fixture describes one.
        if let enable = try Sidecar.zoo(sensor.fixture).devices["iio:device0"]?.first?.events?.enableFiles.first {
            steps.append(.waitFile("sys/bus/iio/devices/iio:device0/\(enable)", "1", within: asleepAt))
        }
        if late > 0 { steps.append(.waitPlay(asleepAt + late)) }
        if sleep { steps.append(.suspend(sleepSeconds, sensor.suspendOptions)) }
        // Until the trace ends.
        let left = sleep ? traceSeconds - asleepAt - sleepSeconds : traceSeconds
        steps += [.wait(.stdout("\"rotation\":\(degrees),", within: left)), .stop]
        let r = try await Testbed.run(devices: ["zoo/\(sensor.fixture).umockdev"], steps: steps, arguments: ["--print"])
        let start = try #require(r.results.playStarted?.at, "\(r.transcript)")
        let turnEnd = start + turnStart + quarter * Double(degrees) / 90
        guard sleep else { return (r, r.published(rotation: degrees, after: turnEnd - 1).map { $0 - turnEnd }) }
        let asleep = try #require(r.results.suspendAsleep.first, "\(r.transcript)")
        let woke = try #require(r.results.suspendWakes.first?.at, "\(r.transcript)")
        let held = try #require(r.results.suspendHeld.first, "\(r.transcript)")
        // The sleep must begin before the turn does, else the turn is seen awake.
        #expect(asleep < start + held + turnStart, "fell asleep \(asleep - start) s into the trace, held \(held) s, after the turn began")
        // On the program's clock the sleep takes no time (its CLOCK_MONOTONIC is held back by the time slept).
        #expect(woke - asleep < Tolerance.suspendClock, "the program's clock moved \(woke - asleep) s across the sleep")
        return (r, r.published(rotation: degrees, after: woke).map { $0 - woke })
    }

    static func millis(_ s: Double?) -> String { s.map { String(format: "%.0f ms", $0 * 1000) } ?? "never" }

    @Test("the test bed's suspend as the program sees it: a CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET becomes readable at the wake and its read fails with ECANCELED; CLOCK_BOOTTIME - CLOCK_MONOTONIC grows by the time slept; a 2 s sleep or poll() across a 1.5 s suspend lasts 2 s on CLOCK_MONOTONIC and 3.5 s on CLOCK_BOOTTIME")
    func testBedSuspend() async throws {
        // Each 0.5 s is a time, not a wait: the suspend comes inside the probe's 2 s sleep (and poll), 0.5 s into it.
        let steps: [Step] = [.start, .wait(.stdout("ready", within: Tolerance.slowReply)), .suspend(1.5), .wait(.stdout("timerfd")),
                              .wait(.stdout("sleeping")), .sleep(0.5), .suspend(1.5), .wait(.stdout("slept")),
                              .wait(.stdout("polling")), .sleep(0.5), .suspend(1.5), .wait(.stdout("polled")),
                              .exit(within: Tolerance.slowReply)]
        let r = try await Testbed.run(devices: [], steps: steps,
                                          arguments: [Testbed.probes.appendingPathComponent("sleep-probe.py").path],
                                          program: "/usr/bin/python3")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        func numbers(_ prefix: String) -> [Double] {
            guard let line = r.stdout.first(where: { $0.hasPrefix(prefix) }) else { return [] }
            return line.split(whereSeparator: { " ;,".contains($0) }).compactMap { Double($0) }
        }
        let cancelled = numbers("timerfd: ECANCELED at ")
        let woke = try #require(r.results.suspendWakes.first?.at, "\(r.transcript)")
        #expect(cancelled.count == 2, "\(r.stdout)")
        if cancelled.count == 2 {
            #expect(cancelled[0] >= woke && cancelled[0] - woke < Tolerance.timerfdCancel, "cancelled at \(cancelled[0]), woke at \(woke)")
            #expect(abs(cancelled[1] - 1.5) < Tolerance.bootClockGrowth, "CLOCK_BOOTTIME - CLOCK_MONOTONIC grew \(cancelled[1]) s")
        }
        for what in ["slept ", "polled "] {
            let n = numbers(what)
            #expect(n.count == 2 && abs(n[0] - 2) < Tolerance.monotonicSleep && abs(n[1] - 3.5) < Tolerance.boottimeSleep, "\(what): \(r.stdout)")
        }
        #expect(r.results.kernelLines.contains { $0.contains("resume timerfd") && $0.contains("TFD_TIMER_CANCEL_ON_SET cancelled") },
                "\(r.transcript)")
    }

    @Test("a sensor asleep while the device is turned: the new rotation is published within 0.5 s of the wake, and no write is refused",
          arguments: sensors.map { ($0, 90) } + [(sensors[0], 180), (sensors[5], 180)])
    func turnedWhileAsleep(sensor: SleptSensor, degrees: Int) async throws {
        let (r, latency) = try await Self.run(sensor, degrees: degrees, sleep: true)
        print("wake→publish \(sensor.testDescription) \(degrees)°: \(Self.millis(latency))")
        #expect(latency.map { $0 < Self.wakeLatency } == true,
                "\(degrees)° published \(Self.millis(latency)) after the wake: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
        let failure = r.failure.map { $0.verb == "wait" ? nil : $0 } ?? nil
        #expect(failure == nil, "\(failure.map(\.description) ?? "")")
    }

    @Test("a sensor whose motion event lost its configuration over the sleep (the enable files still read 1): the new rotation is published within 0.5 s of the wake, and no write is refused",
          arguments: lostEvents)
    func turnedWhileAsleepEventsLost(sensor: SleptSensor) async throws {
        let (r, latency) = try await Self.run(sensor, degrees: 90, sleep: true)
        print("wake→publish \(sensor.testDescription) 90°: \(Self.millis(latency))")
        #expect(latency.map { $0 < Self.wakeLatency } == true,
                "90° published \(Self.millis(latency)) after the wake: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }

    @Test("the test bed holds the trace at the sleep's time until a sleep that comes late begins (a loaded machine): a sleep 1.5 s late, after the turn's end, still finds the device upright, and the turn made asleep is published within 0.5 s of the wake")
    func lateSleepHoldsTheTrace() async throws {
        let late = 1.5
        #expect(Self.asleepAt + late > Self.turnStart + Self.quarter)
        let (r, latency) = try await Self.run(SleptSensor("kxcjk-1013"), degrees: 90, sleep: true, late: late)
        let held = r.results.suspendHeld.first
        #expect(held.map { $0 >= late - Tolerance.lateSuspendHold } == true, "the trace was held \(held ?? -1) s: \(r.transcript)")
        #expect(latency.map { $0 < Self.wakeLatency } == true, "90° published \(Self.millis(latency)) after the wake: \(r.transcript)")
    }

    @Test("control, without the sleep: the same turn made while awake is published within 2 s of its end, and no write is refused",
          arguments: [SleptSensor("bmc150-dual"), SleptSensor("hid-sensor"), SleptSensor("mxc4005-noirq")])
    func turnedAwake(sensor: SleptSensor) async throws {
        let (r, latency) = try await Self.run(sensor, degrees: 90, sleep: false)
        print("turn end→publish \(sensor.fixture) 90° awake: \(Self.millis(latency))")
        #expect(r.failure == nil && r.status == 0, "\(r.transcript)")
        #expect(latency.map { $0 < Tolerance.turnAwake } == true, "published \(Self.millis(latency)) after the turn's end: \(r.transcript)")
        #expect(r.refusedWrites.isEmpty, "the kernel refused: \(r.refusedWrites)")
    }
}
