import Glibc
import RotationEngine
import RotationSensors
import Synchronization
import RotationSystem

/// `rotationd --list`: every sensor and every camera found, and what would be used.
enum Listing {
    /// `rotationd --list`: prints every sensor and every camera found, and what would be used; 0 even when
    /// none is found.
    static func run(_ options: DaemonOptions) -> Int32 {
        OutputStreamFD.standardOutput.write(text(options))
        return 0
    }

    /// What `--list` prints: the sensors (the display accelerometer read for up to `listSamplingTime`), then the
    /// cameras.
    static func text(_ options: DaemonOptions) -> String {
        sensorListing(options) + CameraInput.list(options)
    }

    private static func sensorListing(_ options: DaemonOptions) -> String {
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: options.rate) } catch {
            Log.error(error.description)
            return "no sensors: \(error)\n"
        }
        if inventory.accelerometers.isEmpty && inventory.gyroscopes.isEmpty && inventory.hinges.isEmpty
            && inventory.rejected.isEmpty && inventory.switches.isEmpty {
            return "no sensors found: looked for \(SensorDiscovery.lookingFor), and anglvel_x/y/z for a gyroscope\n"
        }
        var text = ""
        for s in inventory.accelerometers + inventory.gyroscopes {
            var role: String
            if s.kind == .accelerometer {
                role = s.id == inventory.display?.id ? "display accelerometer, fed to the engine"
                    : (s.location == .base ? (s.id == inventory.base?.id ? "base accelerometer, read for the posture" : "second base accelerometer, not used")
                       : "second display accelerometer, not used")
            } else {
                role = s.id == inventory.gyroscope?.id && !options.noGyro ? "gyroscope, fused with the display accelerometer"
                    : "gyroscope, not used"
            }
            text += s.listing + "\n  role: \(role)\n"
            if s.kind == .accelerometer && s.id == inventory.display?.id {
                text += "  at rest: \(atRest(options))\n"
            }
        }
        for h in inventory.hinges {
            let role = h.id == inventory.hinge?.id ? "hinge sensor, read for the posture and used first" : "second hinge sensor, not used"
            text += h.listing + "\n  role: \(role)\n"
        }
        for s in inventory.switches {
            text += s.listing + "\n  role: switch, read for the posture where no hinge sensor or base accelerometer tells it\n"
        }
        for r in inventory.rejected {
            text += "\(r.id): \(r.kind.rawValue), cannot be used: \(r.error)\n"
        }
        text += "posture: " + postureSources(inventory) + "\n"
        text += "tablet-mode switch: " + tabletModeSwitch(inventory) + "\n"
        return text
    }

    /// Whether `--tablet-mode-switch` would make a switch on this machine, and why not where it would not.
    static func tabletModeSwitch(_ inventory: SensorInventory) -> String {
        switch TabletModeSwitch.refusal(inventory) {
        case .anotherSwitch(let s)?:
            return "the kernel's, \(s.name) (\(s.sysname)), which the desktop follows; --tablet-mode-switch would make none"
        case .noPostureSource?:
            return "none, and nothing tells the posture; --tablet-mode-switch would make none"
        default:
            return "none from the kernel; --tablet-mode-switch would make one that follows the posture (Docs/posture.md, \"The desktop's tablet mode\")"
        }
    }

    /// The posture's sources found, and the one used: `Docs/posture.md`, "Sources, most trusted first".
    static func postureSources(_ inventory: SensorInventory) -> String {
        let found = inventory.switches.map { "\($0.reported) (\($0.sysname))" }
        let switches = found.isEmpty ? "no tablet-mode or lid switch"
            : "the switches " + found.joined(separator: ", ") + " next"
        let pair = inventory.display.flatMap { d in inventory.base.map { "\(d.id) and \($0.id)" } }
        guard let hinge = inventory.hinge else {
            guard let pair else {
                guard !found.isEmpty else {
                    return "none found (no hinge sensor, no base accelerometer beside a display one, no switch): published as null"
                }
                let lidOnly = inventory.switches.allSatisfy { $0.kinds == [.lid] }
                return "from the switches " + found.joined(separator: ", ") + ", used; no hinge sensor and no base accelerometer"
                    + (lidOnly ? " (a lid switch alone tells closed, and laptop once it opens)" : "")
            }
            return "from the display and base accelerometers together (\(pair)), used; no hinge sensor; \(switches)"
        }
        let sensor = "from the hinge sensor \(hinge.id) (\(hinge.name), \(hinge.rawFile)), used first"
        guard inventory.display != nil else { return sensor + ", once a display accelerometer is found; \(switches)" }
        return sensor + (pair.map { "; the display and base accelerometers together (\($0)) while it gives no reading" }
                         ?? "; no base accelerometer") + "; \(switches)"
    }

    /// How long `--list` samples the display accelerometer to learn what 1 g reads.
    static let listSamplingTime = 3.0

    /// Samples the display accelerometer until the engine has seen a second of stillness (at most
    /// `listSamplingTime`), and says what 1 g reads and whether the scale is right.
    static func atRest(_ options: DaemonOptions) -> String {
        var config = SensorSource.Configuration()
        config.rate = options.rate
        config.gyroscope = false
        let source = SensorSource(configuration: config)
        let engine = Mutex(OrientationEngine(configuration: options.configuration))
        let samples = Atomic<Int>(0)
        source.start(onSample: { sample in
            engine.withLock { _ = $0.process(sample) }
            samples.add(1, ordering: .relaxed)
        }, onStatus: { _, _ in })
        let deadline = MonotonicClock.now() + listSamplingTime
        var diagnosis: ScaleDiagnosis?
        while MonotonicClock.now() < deadline {
            MonotonicClock.sleep(0.05)
            if let sensor = source.sensor {
                let learned = engine.withLock { $0.learnedGravity }
                diagnosis = ScaleDiagnosis(sensor: sensor, learned: learned, gravity: options.configuration.gravity)
                if diagnosis != nil { break }
            }
        }
        source.stop()
        if let diagnosis { return diagnosis.description }
        let count = samples.load(ordering: .relaxed)
        if count == 0 { return "no sample could be read within \(Int(listSamplingTime)) s (see the messages above)" }
        return "not still for a second within \(Int(listSamplingTime)) s (\(count) samples), so what 1 g reads is not known; hold the device still and run --list again"
    }

}
