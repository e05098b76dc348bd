import RotationProtocol
import RotationSensors
import RotationSystem

/// `rotationd --fix-mount`: the guided fix of a wrong mount matrix.
///
/// For the display accelerometer, then a convertible's base one, it asks for three poses (`MountPose`), waits for
/// each to be held still (`PoseSession`), works the matrix out (`MountSolver`), and when it differs from the one
/// in force writes the hwdb entry for this machine (`HwdbKey`, `HwdbEntry`). With consent (a yes at the prompt, or
/// `--yes`) it merges the entries into the local hwdb file (`HwdbFile`), compiles the database and has udev apply
/// it (`HwdbInstaller`), reads the matrix back and asks for one pose again to check it; then says how to send
/// the entry to systemd. The sensors are read through their raw attributes only, so the rotationd service may
/// run meanwhile.
struct MountFix {
    /// One sensor whose matrix was found wrong: its entry, and its last pose's reading.
    struct Measured {
        var sensor: SensorDescription
        var reader: RawAccelerometer
        var entry: HwdbEntry
        var last: Vector3
    }

    /// Whether to install without asking (`--yes`).
    let assumeYes: Bool
    let console = FixConsole()
    let installer = HwdbInstaller.fromEnvironment()

    /// Runs the guide; returns the exit status: 0 when the matrices were right, or an entry was found (installed
    /// or not), 1 when something failed (said on standard error).
    func run() -> Int32 {
        do { return try fix() } catch {
            console.endLine()
            OutputStreamFD.standardError.write("rotationd: \(error)\n")
            return 1
        }
    }

    private func fix() throws(MountFixError) -> Int32 {
        let sensors = try findSensors()
        introduce(sensors)
        var fixed: [Measured] = []
        for (i, sensor) in sensors.enumerated() {
            let prompt = i == 0 ? "Press Enter to start (Ctrl-C stops)." : "Press Enter to go on with the keyboard base."
            guard console.waitForEnter(prompt) else { return 1 }
            if let m = try measure(sensor) { fixed.append(m) }
        }
        guard !fixed.isEmpty else {
            console.say("Nothing to fix: the mount matrix in force is right.")
            return 0
        }
        let existing = installer.existing()
        let merged = HwdbFile(merging: fixed.map(\.entry), into: existing)
        console.say()
        console.say("The hwdb entry for this machine:")
        console.say()
        console.say(merged.entries.map(\.text).joined(separator: "\n"), terminated: "")
        console.say()
        var measured = fixed
        for i in measured.indices { measured[i].entry = merged.entries[i] }
        let installed = try install(merged, measured, existed: !existing.isEmpty)
        console.say()
        console.show(MountFixText.upstream(merged.entries, inherited: inherited(fixed, merged), checked: installed))
        return 0
    }

    /// The display accelerometer and the base one, those found.
    private func findSensors() throws(MountFixError) -> [SensorDescription] {
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: 50) } catch { throw .discovery(error) }
        let sensors = [inventory.display, inventory.base].compactMap { $0 }
        guard !sensors.isEmpty else {
            throw .noAccelerometer(rejected: inventory.rejected.filter { $0.kind == .accelerometer }.map { "\($0.id): \($0.error)" })
        }
        return sensors
    }

    private func introduce(_ sensors: [SensorDescription]) {
        console.paragraph("rotationd --fix-mount works out each accelerometer's mount matrix from three poses, and writes the hwdb entry that puts it right. The rotationd service may keep running: this only reads the sensors.")
        for s in sensors {
            let role = s.location == .base ? "Keyboard base accelerometer" : "Display accelerometer"
            console.paragraph("\(role): \(s.id) (\(s.name)), mount matrix now \(s.calibration.matrix) (from \(s.calibration.matrixSource))")
        }
        console.paragraph("Before you start, turn automatic rotation off (or lock it) in the desktop, so that this text stays the right way up in the device's natural orientation. Hold each pose still until its bar is full.")
    }

    /// Asks for the sensor's three poses and works its matrix out; the sensor and its entry when the matrix in
    /// force is wrong, nil when it is right.
    private func measure(_ sensor: SensorDescription) throws(MountFixError) -> Measured? {
        guard let reader = RawAccelerometer(sensor) else { throw .noRaw(device: sensor.id, name: sensor.name) }
        let key: HwdbKey
        do { key = try HwdbKey.read(device: sensor.id) } catch { throw .noKey(error) }
        let session = PoseSession(sensor: reader, console: console)
        // A sensor that cannot be read says so before the user is asked for anything.
        _ = try session.read()
        let poses = MountPose.poses(for: sensor.location)
        let current = sensor.calibration.matrix
        var readings: [Vector3] = []
        for (i, pose) in poses.enumerated() {
            console.say()
            console.paragraph("\(sensor.location == .base ? "Base" : "Display"), pose \(i + 1) of \(poses.count), \(pose.name): \(pose.instruction)")
            let reading = try session.hold(pose, number: i + 1, leaving: readings.last, through: current)
            console.paragraph("pose \(i + 1) held; the matrix in force reads it as \(pose.reading(current.apply(reading)))", indent: "  ")
            readings.append(reading)
        }
        let matrix: MountMatrix
        do { matrix = try MountSolver.solve(readings, poses: poses) } catch { throw .poses(device: sensor.id, error) }
        console.say()
        guard matrix != current else {
            console.paragraph("\(sensor.id): the mount matrix in force, \(current), is right.")
            return nil
        }
        console.paragraph("\(sensor.id): the mount matrix is \(matrix); the one in force, \(current) (from \(sensor.calibration.matrixSource)), is wrong.")
        let entry = HwdbEntry(key: key, matrix: matrix, location: sensor.location, sensorName: sensor.name)
        return Measured(sensor: sensor, reader: reader, entry: entry, last: readings[readings.count - 1])
    }

    /// The sensors whose wrong matrix came from an entry the local file did not hold, and that matrix.
    private func inherited(_ fixed: [Measured], _ merged: HwdbFile) -> [(device: String, matrix: String)] {
        fixed.filter { m in
            m.sensor.calibration.matrixSource.hasPrefix("udev") && !merged.replaced.contains { m.entry.key.isMatched(by: $0.trimmed(" \t")) }
        }.map { ($0.sensor.id, "\($0.sensor.calibration.matrix)") }
    }
}
