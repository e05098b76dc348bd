extension SensorSource {
    /// What to capture and how often.
    public struct Configuration: Sendable, Hashable {
        /// The wanted sample rate in Hz: the polling rate, and the floor for the sampling frequency chosen.
        public var rate: Double = 50
        /// Whether to read a gyroscope alongside the accelerometer.
        public var gyroscope: Bool = true
        /// Seconds between rescans while no sensor is available (udev events rescan sooner).
        public var rescanInterval: Double = 1
        /// Seconds a buffer may stay silent, before or after its first data, before capture falls back to
        /// polling (longer when the FIFO batch takes longer to fill).
        public var bufferSilence: Double = 0.5
        /// While the device moves, a buffered sensor is read about this often: a sample waits for the rest of its
        /// batch, so a turn is published up to one batch later than its deciding sample (at 0.1 s, 40 to 80 ms
        /// later on the driver zoo: `scripts/bench-stages.sh`). One sample at 50 Hz: as many wake-ups as a polled
        /// sensor, while the device moves.
        public var movingWakeInterval: Double = 0.02
        /// While the device is still, a buffered sensor is read once about this often: its sampling frequency
        /// is lowered and the FIFO watermark raised to match (`setReadInterval`). Short enough that the batch
        /// holding the start of a turn arrives while the turn is still under way.
        public var stillWakeInterval: Double = 0.5
        /// While the device is still, a sensor whose driver offers a motion event (`MotionEventDriver`) is not read
        /// at all: its event is armed to fire on a change faster than this many m/s² per second (gravity
        /// turning at about 47°/s, early in a turn; a hand's tremor, about 0.05 m/s² at 8 to 12 Hz, changes it at
        /// 3 m/s² per second), and the capture sleeps on the event descriptor.
        public var motionRate: Double = 8
        /// While the event is armed, the sensor samples at its lowest sampling frequency at or above this, so that
        /// the event fires within a sample period of a turn's start (the threshold is the change between two
        /// samples at that frequency).
        public var motionSampleRate: Double = 12.5
        /// While the event is armed, the sensor is read once this often all the same (one axis), in case an event
        /// was lost: an edge-triggered interrupt
        /// line that missed the edge of a latched interrupt stays quiet until the latch is reset. One wake-up in
        /// this many seconds; a lost event delays a turn by at most this long.
        /// A read that finds the device moved with no event since the event was armed shows that the sensor's
        /// events do not arrive at all (no interrupt line wired up): the sensor is then sampled at the still pace.
        public var motionSafetyInterval: Double = 10
        /// After a motion event, the sensor is read at the full rate for at least this long, so the sampling
        /// policy sees the turn's start, before the event is armed again.
        public var motionHold: Double = 0.5

        /// The defaults: 50 Hz, with the gyroscope, rescanning every second, falling back after 500 ms.
        public init() {}
    }
}
