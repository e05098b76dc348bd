import RotationCameras
import RotationEngine
import RotationProtocol
import RotationService
import RotationSystem

/// The cameras as the engine runner's second input: found at start-up, then followed through udev.
///
/// The follower's thread hands each inventory to a `CameraRoster`, which applies `--camera` and keeps names
/// steady; the store notes which cameras arrived (`CameraMemory`), and the resulting list, with the camera that
/// arrived last, goes to the runner as a state change. Problems are logged once each, and every camera that comes
/// or goes is logged with where its values came from.
final class CameraInput: @unchecked Sendable {
    /// The list at start-up, for the first state and `hello`.
    let initial: [Camera]
    /// The camera among `initial` that arrived last and is not infrared.
    let initialArrival: CameraArrival?
    private let store: PreferenceStore
    private let follower = CameraFollower()
    // Touched at init, then only on the follower's thread.
    private var roster: CameraRoster
    private var shown: [ListedCamera]
    private var logged: Set<String> = []

    /// Looks at the system once (reading udev and sysfs; opening only sensor sub-devices, to read controls), and
    /// notes the cameras in `store`.
    init(configured: [Camera], store: PreferenceStore) {
        self.store = store
        roster = CameraRoster(configured: configured)
        let inventory = CameraDiscovery.scan()
        shown = roster.list(inventory.cameras).cameras
        initial = shown.map(\.camera)
        initialArrival = store.observe(initial, now: MonotonicClock.now())
        note(inventory, left: [])
        for c in shown { Log.info("camera \(CameraInput.summary(c))") }
        if let a = initialArrival { Log.info("camera \(a.name) is the one plugged in last: recommended to users who have not chosen a camera since") }
    }

    /// Starts following hot-plug; each change of the list goes to `runner`.
    func start(_ runner: EngineRunner) {
        follower.start { [self] inventory in
            let (listed, left) = self.roster.list(inventory.cameras)
            self.note(inventory, left: left)
            let before = Set(self.shown.map(\.camera)), after = Set(listed.map(\.camera))
            for c in self.shown where !after.contains(c.camera) { Log.info("camera gone: \(CameraInput.summary(c))") }
            for c in listed where !before.contains(c.camera) { Log.info("camera \(CameraInput.summary(c))") }
            self.shown = listed
            let now = MonotonicClock.now()
            let arrival = self.store.observe(listed.map(\.camera), now: now)
            if let a = arrival, a != runner.current.arrival {
                Log.info("camera \(a.name) plugged in: recommended to users who have not chosen a camera since")
            }
            runner.setCameras(listed.map(\.camera), arrival: arrival, time: now)
        }
    }

    /// Stops following hot-plug.
    func stop() { follower.stop() }

    private func note(_ inventory: CameraInventory, left: [DiscoveredCamera]) {
        let problems = inventory.problems + left.map { CameraError.tooMany(device: $0.device, limit: Camera.maxCount) }
        for p in problems where logged.insert(p.description).inserted { Log.warning(p.description) }
    }

    private static func summary(_ c: ListedCamera) -> String {
        let cam = c.camera
        let source = cam.source ?? .default
        return "\(cam.name): \(cam.device ?? "no device")\(cam.model.map { " (\($0))" } ?? ""), facing \(cam.facing.rawValue) (\(source.facing.rawValue)), mount \(cam.mount)° (\(source.mount.rawValue))"
            + (cam.infrared ? ", infrared" : "")
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
        lines += preferenceLines(listed.map(\.camera))
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where the service keeps its camera memory, what it holds, and the camera it would recommend now to a user
    /// with no choice (read only: listing changes nothing).
    private static func preferenceLines(_ cameras: [Camera]) -> [String] {
        let directory = Serve.stateDirectory
        let (memory, problem) = PreferenceStore.read(directory: directory)
        var lines = ["camera memory: \(directory)/\(PreferenceStore.fileName) (\(memory.cameras.count) cameras remembered, "
                     + "\(memory.choices.count) users' preferred cameras; the state directory is $STATE_DIRECTORY, else \(PreferenceStore.defaultDirectory))"]
        if let problem { lines.append("problem: \(problem)") }
        let arrival = memory.arrival(among: cameras)
        if let pick = PreferredCamera.pick(cameras: cameras, state: .initial, arrival: arrival, choice: nil) {
            lines.append("preferred camera for a user with no choice: \(pick.name) (\(pick.rule.summary); the posture may change it)")
        } else {
            lines.append("preferred camera for a user with no choice: none (no camera that takes pictures)")
        }
        return lines
    }
}
