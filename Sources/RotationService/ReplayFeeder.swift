import RotationEngine
import Synchronization

/// Feeds a recorded trace to an engine runner, flat out or paced by the trace's timestamps.
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
    private let stopping = Atomic<Bool>(false)
    private var thread: ServiceThread?

    /// Creates a feeder over `samples`.
    public init(samples: [Sample], realtime: Bool, speed: Double = 1, ignoreGyro: Bool, sensorDescription: String?) {
        self.samples = samples
        self.realtime = realtime
        self.speed = speed > 0 ? speed : 1
        self.ignoreGyro = ignoreGyro
        self.sensorDescription = sensorDescription
    }

    /// Plays the whole trace on the calling thread; returns early when `stop()` is called from elsewhere.
    public func run(_ runner: EngineRunner) {
        let start = MonotonicTime.now()
        let origin = samples.first?.time ?? 0
        for var s in samples {
            if ignoreGyro { s.angularVelocity = nil }
            if realtime {
                let due = start + (s.time - origin) / speed
                while true {
                    if stopping.load(ordering: .relaxed) { return }
                    let left = due - MonotonicTime.now()
                    if left <= 0 { break }
                    MonotonicTime.sleep(min(left, 0.05))
                }
            } else if stopping.load(ordering: .relaxed) {
                return
            }
            runner.feed(s)
        }
    }

    /// Plays the trace on a thread of its own; the last state stays published after the trace ends.
    public func start(_ runner: EngineRunner) {
        thread = ServiceThread { [self] in
            self.run(runner)
            if !self.stopping.load(ordering: .relaxed) {
                Log.info("replay finished after \(self.samples.count) samples and \(runner.changes) changes; still serving the last state")
            }
        }
    }

    /// Ends the replay and waits for its thread.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        thread?.join()
    }
}
