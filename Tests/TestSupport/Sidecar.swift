import Foundation

/// A fixture's sidecar, `X.json` beside `X.umockdev` in `Tests/fixtures`, decoded: what the emulated hardware
/// is (the sensors the `play` step emulates, `Tests/Testbed/testbed/emulated.py`), the emulated kernel's rules for
/// its driver, and, for the driver zoo's fixtures, what a run must show.
///
/// The members are the sidecar's keys (Docs/testing.md, "Emulated parts"); an absent key is its default there.
public struct Sidecar: Decodable, Sendable {
    /// What the fixture emulates, in a line.
    public var driver: String
    /// The kernel sources the fixture follows.
    public var sources: [String]
    /// What the sources say that the fixture relies on.
    public var notes: [String]
    /// Per IIO device (`iio:device0`): its sensors, one, or two when an accelerometer and a gyroscope share the
    /// device and scan together.
    public var devices: [String: [Sensor]]
    /// The emulated kernel's rules for the driver (`Tests/Testbed/kernel/rules.c`), each a line of words.
    public var rules: [String]
    /// What a run must show (the driver zoo's fixtures).
    public var expect: Expectation?

    /// The sidecar of `fixture`, relative to `Tests/fixtures`, with or without its `.umockdev` extension.
    public init(fixture: String) throws {
        let name = fixture.hasSuffix(".umockdev") ? String(fixture.dropLast(".umockdev".count)) : fixture
        let data = try Data(contentsOf: Testbed.fixtures.appendingPathComponent(name + ".json"))
        self = try JSONDecoder().decode(Sidecar.self, from: data)
    }

    /// The sidecar of the driver zoo's fixture `name` (`Tests/fixtures/zoo/NAME.json`).
    public static func zoo(_ name: String) throws -> Sidecar { try Sidecar(fixture: "zoo/" + name) }

    /// What a run must show, or an error naming the fixture when its sidecar does not say.
    public func expectation() throws(Missing) -> Expectation {
        guard let expect else { throw Missing(driver: driver) }
        return expect
    }

    /// The words after `prefix` of the first rule that starts with those words, such as the table of
    /// `rule("values-up", "iio:device0", "sampling_frequency")`; nil when no rule does.
    public func rule(_ prefix: String...) -> [String]? {
        for rule in rules {
            let words = rule.split(separator: " ").map(String.init)
            if words.starts(with: prefix) { return Array(words.dropFirst(prefix.count)) }
        }
        return nil
    }

    /// Whether any sensor is in the base (a keyboard half), not the display.
    public var hasBase: Bool { devices.values.joined().contains(where: \.inBase) }

    /// One emulated sensor: what the hardware is, not what the driver says.
    public struct Sensor: Decodable, Sendable {
        /// What it measures.
        public var sensor: Kind
        /// Its true scale: SI units per count.
        public var scale: Double
        /// Its true offset in counts, per axis.
        public var offset: [Double]
        /// Its mount matrix: device frame = matrix × sensor frame.
        public var matrix: [[Double]]
        /// Whether it is in the base (a keyboard half, `"location": "base"`), not the display.
        public var inBase: Bool
        /// The range of a raw count, in bits (signed).
        public var bits: Int
        /// Its rate in Hz, when the driver has no sampling frequency attribute.
        public var rate: Double
        /// Its motion event, if the driver offers one.
        public var events: MotionEvent?
        /// Whether it reports a scan only when a reading differs from the last one reported by more than
        /// `in_<sensor>_hysteresis` (a HID sensor hub that honours it); a hub ignores it by default.
        public var hysteresisHonoured: Bool
        /// Whether a raw read of its channels is answered through its buffer too (a HID sensor hub's sensor).
        public var rawReadsReported: Bool
        /// Whether its interrupt line reaches the host: without one, neither its buffer nor its events deliver.
        public var interrupt: Bool
        /// Whether it raises the motion event it takes the enable of (false: it never does, though its buffer
        /// streams).
        public var eventsRaised: Bool

        /// What a sensor measures.
        public enum Kind: String, Decodable, Sendable {
            /// Acceleration (an accelerometer).
            case accel
            /// Angular velocity (a gyroscope).
            case anglvel
        }

        enum CodingKeys: String, CodingKey {
            case sensor, scale, offset, matrix, location, bits, rate, events, hysteresis, interrupt
            case rawReads = "raw-reads", eventsRaised = "events-raised"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            sensor = try c.decode(Kind.self, forKey: .sensor)
            scale = try c.decode(Double.self, forKey: .scale)
            offset = try c.decodeIfPresent([Double].self, forKey: .offset) ?? [0, 0, 0]
            matrix = try c.decodeIfPresent([[Double]].self, forKey: .matrix) ?? [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
            let location = try c.decodeIfPresent(String.self, forKey: .location) ?? "display"
            guard ["display", "base"].contains(location) else {
                throw DecodingError.dataCorruptedError(forKey: .location, in: c, debugDescription: "a location is \"display\" or \"base\"")
            }
            inBase = location == "base"
            bits = try c.decodeIfPresent(Int.self, forKey: .bits) ?? 16
            rate = try c.decodeIfPresent(Double.self, forKey: .rate) ?? 50
            events = try c.decodeIfPresent(MotionEvent.self, forKey: .events)
            hysteresisHonoured = try c.decodeIfPresent(String.self, forKey: .hysteresis) == "honoured"
            rawReadsReported = try c.decodeIfPresent(String.self, forKey: .rawReads) == "reported"
            interrupt = try c.decodeIfPresent(Bool.self, forKey: .interrupt) ?? true
            eventsRaised = try c.decodeIfPresent(Bool.self, forKey: .eventsRaised) ?? true
        }
    }

    /// A sensor's motion event, as its hardware compares and its driver reports (`Tests/Testbed/testbed/motion.py`).
    public struct MotionEvent: Decodable, Sendable {
        /// The enable file of each axis (`x`, `y`, `z`), or of the one channel of all three (`x|y|z`), relative to
        /// the device's directory.
        public var enable: [String: String]
        /// The threshold's file.
        public var value: String
        /// What one unit of the threshold is.
        public var unit: Unit
        /// `slope`: the change between two successive samples; `reference`: the change from the reading when the
        /// event was enabled, or last fired.
        public var detector: String
        /// The IIO event type: `thresh`, `mag` or `roc`.
        public var type: String
        /// `either`, `rising`, or `sign` (rising or falling by the change's sign).
        public var direction: String

        /// The enable files, in order.
        public var enableFiles: [String] { enable.values.sorted() }

        /// What one unit of a threshold is.
        public enum Unit: Decodable, Sendable, Equatable {
            /// So many m/s².
            case metresPerSecondSquared(Double)
            /// m/s² per second: the change between two samples times the sampling frequency.
            case perSecond

            public init(from decoder: any Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let value = try? c.decode(Double.self) {
                    self = .metresPerSecondSquared(value)
                } else if try c.decode(String.self) == "per-second" {
                    self = .perSecond
                } else {
                    throw DecodingError.dataCorruptedError(in: c, debugDescription: "a unit is a number of m/s² or \"per-second\"")
                }
            }
        }
    }

    /// What a driver zoo run must show.
    public struct Expectation: Decodable, Sendable {
        /// The display accelerometer's device.
        public var display: String
        /// The base accelerometer's device, on a convertible.
        public var base: String?
        /// The gyroscope's device when rotationd fuses one.
        public var gyroscope: String?
        /// How the display accelerometer is read, as rotationd says it: `buffered` or `polled`.
        public var capture: String
        /// Per device: the scale `--list` gives, and the file it comes from.
        public var scales: [String: Scale]
        /// Per device: attribute files and the values they must hold again after the run.
        public var restore: [String: [String: String]]
        /// Warnings the run must log (substrings); any other warning fails it.
        public var warnings: [String]
        /// Per sensor (`iio:device1 gyroscope`): how `--list` says it is read; left out of most sidecars.
        public var modes: [String: String]

        enum CodingKeys: String, CodingKey {
            case display, base, gyroscope, capture, scales, restore, warnings, modes
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            display = try c.decode(String.self, forKey: .display)
            base = try c.decodeIfPresent(String.self, forKey: .base)
            gyroscope = try c.decodeIfPresent(String.self, forKey: .gyroscope)
            capture = try c.decode(String.self, forKey: .capture)
            scales = try c.decode([String: Scale].self, forKey: .scales)
            restore = try c.decode([String: [String: String]].self, forKey: .restore)
            warnings = try c.decode([String].self, forKey: .warnings)
            modes = try c.decodeIfPresent([String: String].self, forKey: .modes) ?? [:]
        }

        /// The steps that check every file of `restore` holds its value again.
        public var restoreSteps: [Step] {
            restore.flatMap { device, files in
                files.map { Step.expectFile("sys/bus/iio/devices/\(device)/\($0.key)", $0.value) }
            }
        }
    }

    /// A scale and the file it comes from (`[0.000598205, "in_accel_scale"]` in the sidecar).
    public struct Scale: Decodable, Sendable {
        /// SI units per count.
        public var value: Double
        /// The attribute file.
        public var file: String

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            value = try c.decode(Double.self)
            file = try c.decode(String.self)
        }
    }

    /// A sidecar that does not say what a run must show.
    public struct Missing: Error, CustomStringConvertible {
        /// The fixture's description.
        public var driver: String
        /// What is missing.
        public var description: String { "the sidecar of \"\(driver)\" has no \"expect\": what a run must show" }
    }

    enum CodingKeys: String, CodingKey {
        case driver, sources, notes, devices, rules, expect
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        driver = try c.decode(String.self, forKey: .driver)
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        notes = try c.decodeIfPresent([String].self, forKey: .notes) ?? []
        devices = try c.decodeIfPresent([String: OneOrMore<Sensor>].self, forKey: .devices)?.mapValues(\.values) ?? [:]
        rules = try c.decodeIfPresent([String].self, forKey: .rules) ?? []
        expect = try c.decodeIfPresent(Expectation.self, forKey: .expect)
    }

    /// A value or a list of them.
    private struct OneOrMore<Value: Decodable & Sendable>: Decodable, Sendable {
        var values: [Value]

        init(from decoder: any Decoder) throws {
            values = (try? decoder.unkeyedContainer()) == nil ? [try Value(from: decoder)] : try [Value](from: decoder)
        }
    }
}
