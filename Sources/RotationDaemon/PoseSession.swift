import Glibc
import RotationProtocol
import RotationSensors
import RotationSystem

/// One sensor read through its raw attributes while the user holds the guided fix's poses (`PoseHold`), with the
/// progress shown as it goes (`FixConsole`).
struct PoseSession {
    /// Seconds between readings: 25 a second, enough to see a hand's tremor, few enough for a slow driver.
    static let interval = 0.04
    /// Seconds between redraws of the progress line.
    static let redraw = 0.1
    /// Seconds a pose may take, turning and holding still, before the guide gives up.
    static let patience = 60.0

    /// The sensor read.
    let sensor: RawAccelerometer
    /// Where progress goes.
    let console: FixConsole

    /// Waits until pose `number` is held still (after the device left `previous`, when given), showing what the
    /// device reads as through `matrix` meanwhile; returns the pose's mean reading in the sensor's frame.
    func hold(_ pose: MountPose, number: Int, leaving previous: Vector3?, through matrix: MountMatrix) throws(MountFixError) -> Vector3 {
        switch try follow(pose, label: "pose \(number)", leaving: previous, through: matrix) {
        case .held(let reading, _):
            return reading
        case .moved(let degrees):
            throw .poses(device: sensor.sensor.id, .moved(pose: number, degrees: degrees))
        default:
            preconditionFailure("follow returns only a finished hold")
        }
    }

    /// Waits until the device, held still, reads `pose` through `matrix` (after it left `previous`); each hold
    /// that reads another pose is said, and the device must then turn again.
    func check(_ pose: MountPose, through matrix: MountMatrix, leaving previous: Vector3?) throws(MountFixError) {
        let deadline = MonotonicClock.now() + Self.patience
        var leaving = previous
        var reads = "nothing yet"
        while MonotonicClock.now() < deadline {
            let phase: PoseHold.Phase
            do { phase = try follow(pose, label: "check", leaving: leaving, through: matrix) } catch {
                if case .notHeld = error { break }
                throw error
            }
            guard case .held(let reading, _) = phase else { continue }
            let seen = matrix.apply(reading)
            if MountSolver.angle(seen, pose.up) <= MountSolver.axisTolerance { return }
            reads = pose.reading(seen)
            console.paragraph("it reads \(reads), not \(pose.name): hold it \(pose.name)", indent: "  ")
            leaving = reading
        }
        throw .checkFailed(pose: pose.name, reads: reads)
    }

    /// Reads the sensor until the hold is held or moved, drawing its progress; throws when `patience` runs out.
    private func follow(_ pose: MountPose, label: String, leaving previous: Vector3?,
                        through matrix: MountMatrix) throws(MountFixError) -> PoseHold.Phase {
        var hold = PoseHold(leaving: previous)
        let start = MonotonicClock.now()
        var tick = 0
        var drawn = -Double.infinity
        var step: String?
        while true {
            let v = try read()
            let now = MonotonicClock.now()
            let phase = hold.add(v, at: now)
            let done: Bool
            switch phase {
            case .held, .moved: done = true
            default: done = false
            }
            // Every step is drawn, however soon the next one follows: a log shows each of them.
            let plain = PoseProgress.plain(phase, label: label)
            if done || now - drawn >= Self.redraw || plain != step {
                console.progress(PoseProgress.line(phase, tick: tick, reads: pose.reading(matrix.apply(v))), plain: plain)
                tick += 1
                drawn = now
                step = plain
            }
            if done {
                console.endLine()
                return phase
            }
            if now - start > Self.patience {
                console.endLine()
                throw .notHeld(pose: label, name: pose.name, seconds: Int(Self.patience), waitingFor: Self.waitingFor(phase))
            }
            MonotonicClock.sleep(Self.interval)
        }
    }

    /// What a hold in `phase` waits for, in words.
    static func waitingFor(_ phase: PoseHold.Phase) -> String {
        if case .turning = phase { return "the device to turn away from the pose before" }
        return "the device to be still"
    }

    /// One reading, or why it failed: a busy device named as such.
    func read() throws(MountFixError) -> Vector3 {
        do { return try sensor.read() } catch {
            if case .io(let e) = error, e.errno == .busy { throw .busy(device: sensor.sensor.id, path: e.path) }
            throw .read(error)
        }
    }
}
