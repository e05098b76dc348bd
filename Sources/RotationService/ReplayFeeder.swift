import RotationEngine
import RotationProtocol
import Synchronization
import RotationSystem

/// Feeds a recorded trace to an engine runner, flat out or paced by the trace's timestamps.
///
/// The engine always sees the trace's own times, so a replay decides the same whatever its pace. What goes out
/// as `t` depends on `clock`: the trace's time, or, for a paced replay that a service publishes, the moment on
/// CLOCK_MONOTONIC at which each sample was due, as a live sensor's samples are stamped.
public final class ReplayFeeder: InputFeed, @unchecked Sendable {
    /// The samples, in time order.
    public let samples: [Sample]
    /// Whether samples are paced by their timestamps.
    public let realtime: Bool
    /// How many times faster than recorded a paced replay runs.
    public let speed: Double
    /// Whether gyroscope readings are dropped so the engine uses the accelerometer alone.
    public let ignoreGyro: Bool
    /// What `hello` reports as the sensor.
    public let sensorDescription: String?
    /// The clock of the published `t`.
    public let clock: Clock
    /// The clock a replay's states and samples are stamped on.
    public enum Clock: Sendable {
        /// The trace's own time, as recorded.
        case trace
        /// CLOCK_MONOTONIC: each sample at the moment it was due, as a live sensor's (a paced replay only).
        case monotonic
    }
    private let stopping = Atomic<Bool>(false)
    private var thread: SystemThread?

    /// Creates a feeder over `samples`; `clock` is `.monotonic` only for a paced (`realtime`) replay.
    public init(samples: [Sample], realtime: Bool, speed: Double = 1, ignoreGyro: Bool, sensorDescription: String?,
                clock: Clock = .trace) {
        self.samples = samples
        self.realtime = realtime
        self.clock = realtime ? clock : .trace
        self.speed = speed > 0 ? speed : 1
        self.ignoreGyro = ignoreGyro
        self.sensorDescription = sensorDescription
    }

    /// Plays the whole trace on the calling thread; returns early when `stop()` is called from elsewhere.
    ///
    /// When the runner has a sampling policy, the samples a live capture would not have read are skipped: at
    /// the slow pace, one sample per interval that `feed` returns, in the trace's own time; the first one at or
    /// after each read is due (within half a sample period, as a poller's reads fall between a trace's samples).
    public func run(_ runner: EngineRunner) {
        // Whole tenths of a millisecond, the resolution of `t` on the wire: at speed 1 each published `t` is
        // then the trace's own plus one offset, to the last digit.
        let start = (MonotonicClock.now() * 10_000).rounded(.up) / 10_000
        let origin = samples.first?.time ?? 0
        if clock == .monotonic {
            func f(_ v: Double) -> String { JSONWriter.format(v, decimals: 4) }
            let mapping = speed == 1 ? "t = trace time + \(f(start - origin)) s"
                : "t = \(f(start)) s + (trace time - \(f(origin)) s) / \(speed)"
            Log.info("replaying on CLOCK_MONOTONIC, as a live sensor: \(mapping)")
        }
        var pace = ReplayPace()
        for var s in samples {
            guard pace.reads(s.time) else { continue }
            if ignoreGyro { s.angularVelocity = nil }
            if realtime {
                let due = start + (s.time - origin) / speed
                while true {
                    if stopping.load(ordering: .relaxed) { return }
                    let left = due - MonotonicClock.now()
                    if left <= 0 { break }
                    MonotonicClock.sleep(min(left, 0.05))
                }
            } else if stopping.load(ordering: .relaxed) {
                return
            }
            let interval = clock == .monotonic ? runner.feed(s, publishedAt: start + (s.time - origin) / speed) : runner.feed(s)
            pace.read(at: s.time, interval: interval)
        }
    }

    /// Plays the trace on a thread of its own; the last state stays published after the trace ends.
    public func start(_ runner: EngineRunner) {
        thread = SystemThread.start { [self] in
            self.run(runner)
            if !self.stopping.load(ordering: .relaxed) {
                Log.info("replay finished after \(self.samples.count) samples and \(runner.changes) changes; still serving the last state")
            }
        }
    }

    /// Says on standard error that the trace's gyroscope columns disagree with its accelerometer columns.
    public func gyroscopeFound(_ finding: GyroscopeFinding, at time: Double) {
        Log.warning("the gyroscope columns (gx, gy, gz) \(finding.description), at t = \(time) s; the rest of the trace is decided from the accelerometer alone")
    }

    /// Ends the replay and waits for its thread.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        thread?.join()
    }
}
