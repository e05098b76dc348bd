import RotationEngine
import RotationProtocol

/// What a rotationd run is asked to do and with what settings, as its command line gives them.
///
/// The values are those `rotationd --help` describes; `Daemon` runs them. Checking that they make sense together
/// is the command line's business: a `DaemonOptions` is taken as it is.
public struct DaemonOptions: Sendable {
    /// The trace to replay (`--replay`), or nil for the live sensor.
    public var replay: String?
    /// Whether a printing replay is paced by its timestamps (`--realtime`).
    public var realtime = false
    /// Whether gyroscope input is ignored (`--no-gyro`).
    public var noGyro = false
    /// Whether to list the sensors and cameras found and exit (`--list`).
    public var list = false
    /// Whether the published lines go to standard output (`--print`).
    public var print = false
    /// The trace file the live sensor's samples are written to (`--record`), or nil.
    public var record: String?
    /// The live sample rate while the device moves, in Hz (`--rate`).
    public var rate = 50.0
    /// Whether the live sensor is sampled with no subscriber connected (`--always`).
    public var always = false
    /// The configured cameras (`--camera`), in the order given.
    public var cameras: [Camera] = []
    /// The engine's thresholds (`--set`).
    public var configuration = EngineConfiguration.default
    /// Whether to publish over the Unix socket (`--serve`, `--socket`).
    public var serve = false
    /// The socket path to serve on (`--socket`), or nil for the default.
    public var socket: String?
    /// The file mode of a socket rotationd creates (`--socket-mode`).
    public var socketMode: UInt32 = 0o666
    /// The group whose members may subscribe to raw samples (`--samples-group`), or nil.
    public var samplesGroup: String?
    /// Seconds a client may read nothing before it is disconnected (`--client-timeout`).
    public var clientTimeout: Double = 30
    /// How many times faster than recorded a paced replay plays (`--speed`).
    public var speed: Double = 1
    /// Whether every sample is read at the full rate, also while the device is still (`--full-rate`).
    public var fullRate = false
    /// Whether rotationd makes a tablet-mode switch of its own through uinput (`--tablet-mode-switch`).
    public var tabletModeSwitch = false
    /// The SVG file a printing replay draws its picture to (`--picture`), or nil.
    public var picture: String?
    /// The directory a bug report is written to (`--report`), or nil.
    public var report: String?
    /// How long a report records, s (`--duration`): by default long enough for a turn to each edge and a flat
    /// spell at an unhurried pace.
    public var duration = 10.0
    /// The longest recording `--duration` allows, s: ten minutes at 100 Hz is a few megabytes of trace.
    public static let maxDuration = 600.0

    /// Whether to run the guided fix of a wrong mount matrix (`--fix-mount`).
    public var fixMount = false
    /// Whether `--fix-mount` installs its entry without asking (`--yes`).
    public var assumeYes = false

    /// Options with every default: serve nothing, print nothing, the live sensor at 50 Hz.
    public init() {}

    /// The sampling policy to run with: slow while still, unless `--full-rate` turned it off.
    public var samplingPolicy: SamplingPolicy? { fullRate ? nil : SamplingPolicy() }
}
