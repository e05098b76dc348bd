import RotationCameras
import RotationProtocol
import RotationSensors
import RotationService
import Synchronization

/// The cameras as the engine runner's second input: found at start-up, then followed through udev.
///
/// The watcher's thread hands each inventory to a `CameraRoster`, which applies `--camera` and keeps names
/// steady, and the resulting list goes to the runner as a state change. Problems are logged once each, and
/// every camera that comes or goes is logged with where its values came from.
final class CameraInput: @unchecked Sendable {
    /// The list at start-up, for the first state and `hello`.
    let initial: [Camera]
    private let watcher = CameraWatcher()
    // Touched at init, then only on the watcher's thread.
    private var roster: CameraRoster
    private var shown: [ListedCamera]
    private var logged: Set<String> = []

    /// Looks at the system once (reading udev and sysfs; opening only sensor sub-devices, to read controls).
    init(configured: [Camera]) {
        roster = CameraRoster(configured: configured)
        let inventory = CameraDiscovery.scan()
        shown = roster.list(inventory.cameras).cameras
        initial = shown.map(\.camera)
        note(inventory, left: [])
        for c in shown { Log.info("camera \(CameraInput.summary(c))") }
    }

    /// Starts following hot-plug; each change of the list goes to `runner`.
    func start(_ runner: EngineRunner) {
        watcher.start { [self] inventory in
            let (listed, left) = self.roster.list(inventory.cameras)
            self.note(inventory, left: left)
            let before = Set(self.shown.map(\.camera)), after = Set(listed.map(\.camera))
            for c in self.shown where !after.contains(c.camera) { Log.info("camera gone: \(CameraInput.summary(c))") }
            for c in listed where !before.contains(c.camera) { Log.info("camera \(CameraInput.summary(c))") }
            self.shown = listed
            runner.setCameras(listed.map(\.camera), time: MonotonicClock.now())
        }
    }

    /// Stops following hot-plug.
    func stop() { watcher.stop() }

    private func note(_ inventory: CameraInventory, left: [DiscoveredCamera]) {
        let problems = inventory.problems + left.map { CameraError.tooMany(device: $0.device, limit: Camera.maxCount) }
        for p in problems where logged.insert(p.description).inserted { Log.warning(p.description) }
    }

    private static func summary(_ c: ListedCamera) -> String {
        let cam = c.camera
        let source = cam.source ?? .default
        return "\(cam.name): \(cam.device ?? "no device")\(cam.model.map { " (\($0))" } ?? ""), facing \(cam.facing.rawValue) (\(source.facing.rawValue)), mount \(cam.mount)° (\(source.mount.rawValue))"
            + (cam.libcamera.map { ", libcamera \($0)" } ?? "") + (cam.nodes.isEmpty || cam.nodes == [cam.device] ? "" : ", capture nodes \(cam.nodes.joined(separator: " "))")
    }

    /// `rotationd --list`'s camera part: every camera as it would be published, then the nodes that are not
    /// cameras and why.
    static func list(_ options: DaemonOptions) -> String {
        let inventory = CameraDiscovery.scan()
        var roster = CameraRoster(configured: options.cameras)
        let (listed, left) = roster.list(inventory.cameras)
        var lines: [String] = []
        if inventory.cameras.isEmpty {
            lines.append("no cameras found: looked for \(CameraDiscovery.lookingFor)")
        }
        lines += listed.map(\.listing)
        for f in left { lines.append("\(f.device): not listed, \(Camera.maxCount) cameras are listed already") }
        for n in inventory.ignored { lines.append("\(n.device): not a camera: \(n.reason)") }
        for p in inventory.problems { lines.append("problem: \(p)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
