import Dispatch
import Glibc
import RotationEngine
import RotationProtocol
import Synchronization
import RotationSystem

/// The service's camera memory (`CameraMemory`: arrivals and each user's preferred camera), kept in its state
/// directory across restarts and reboots.
///
/// Changes are made in memory at once and written behind, on a queue of the store's own: each write takes the whole
/// memory as it is then, replaces the file atomically and syncs it, so a flood of changes is a few writes (one
/// running and one waiting, `writeSpacing` apart). Each change has a number; `durable(_:)` tells when the change
/// of a number is on disk, so that a command can be answered only then. A file that cannot be read is logged and
/// ignored, and replaced at the next write; a directory that cannot be written keeps every change for the run, said
/// once in the log. With no directory (a served replay) nothing is written and every change is durable at once.
public final class PreferenceStore: Sendable {
    /// The file's name in the state directory.
    public static let fileName = "camera-memory"
    /// The state directory where systemd gives none (`StateDirectory=`): the packaged unit does.
    public static let defaultDirectory = "/var/lib/rotationd"
    /// Seconds between the end of one write and the start of the next.
    static let writeSpacing = 0.1

    private struct Inner {
        var memory: CameraMemory
        /// The number of the latest change, and of the latest on disk (or given up).
        var changed: UInt64 = 0
        var written: UInt64 = 0
        var writing = false
        /// The last write's failure, logged once until a write succeeds.
        var failure: String?
    }

    /// Where the file is, or nil for a memory kept only for the run.
    public let file: String?
    private let state: StateFile?
    private let inner: Mutex<Inner>
    private let queue = DispatchQueue(label: "rotationd-state")
    private let observer = Mutex<(@Sendable (UInt64) -> Void)?>(nil)

    /// The directory `$STATE_DIRECTORY` names (its first, when systemd gives several), else `defaultDirectory`.
    public static func directory(environment: (String) -> String?) -> String {
        if let value = environment("STATE_DIRECTORY"),
           let first = value.split(separator: ":").first, first.hasPrefix("/") { return String(first) }
        return defaultDirectory
    }

    /// Opens the memory in `directory` (nil: none, kept for the run only), reading what an earlier run kept.
    public init(directory: String?) {
        guard let directory else {
            file = nil
            state = nil
            inner = Mutex(Inner(memory: CameraMemory()))
            return
        }
        let state = StateFile(directory: directory, name: PreferenceStore.fileName)
        self.state = state
        file = state.path
        let (memory, problem) = PreferenceStore.read(state)
        if let problem { Log.warning(problem) }
        inner = Mutex(Inner(memory: memory))
    }

    /// What the file in `directory` holds, read without keeping it, and what was wrong with it (nil: nothing).
    public static func read(directory: String) -> (memory: CameraMemory, problem: String?) {
        read(StateFile(directory: directory, name: fileName))
    }

    private static func read(_ state: StateFile) -> (CameraMemory, String?) {
        switch state.read(limit: CameraMemory.maxTextBytes) {
        case .success(nil):
            return (CameraMemory(), nil)
        case .success(let bytes?):
            let (memory, problems) = CameraMemory.read(bytes)
            guard !problems.isEmpty else { return (memory, nil) }
            let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
            return (memory, "\(state.path): \(problems.count) damaged line(s) ignored (\(shown)); the other records are kept, and the file is rewritten at the next change")
        case .failure(let failure):
            return (CameraMemory(), "cannot read the camera memory, \(failure); it is ignored and replaced at the next change (remove the file if this repeats)")
        }
    }

    /// Registers `observer`, called on the store's queue with the number of each change once it is on disk (or
    /// could not be written and holds for the run).
    public func observeDurable(_ observer: @escaping @Sendable (UInt64) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    /// The memory as it is now.
    public var memory: CameraMemory { inner.withLock { $0.memory } }

    /// Notes the cameras attached now (`CameraMemory.observe`); returns the one that arrived last, not infrared.
    public func observe(_ cameras: [Camera], now: Double) -> CameraArrival? {
        inner.withLock { s in
            if s.memory.observe(cameras, now: now) { scheduleWrite(&s) }
            return s.memory.arrival(among: cameras)
        }
    }

    /// User `uid`'s preferred camera, or nil.
    public func choice(for uid: UInt32) -> CameraChoice? { inner.withLock { $0.memory.choice(for: uid) } }

    /// Makes the camera whose identity is `camera` the preferred one of `uid` (nil forgets it); returns the
    /// choice and the number of the change, which `observeDurable`'s observer reports once it is on disk (0: the
    /// store writes nothing).
    public func choose(_ camera: String?, for uid: UInt32) -> (choice: CameraChoice?, change: UInt64) {
        inner.withLock { s in
            let choice = s.memory.choose(camera, for: uid)
            return (choice, scheduleWrite(&s))
        }
    }

    /// Waits until every change made so far has been written (or given up).
    public func flush() { queue.sync {} }

    @discardableResult
    private func scheduleWrite(_ s: inout Inner) -> UInt64 {
        guard state != nil else { return 0 }
        s.changed += 1
        if !s.writing {
            s.writing = true
            queue.async { self.writeBehind() }
        }
        return s.changed
    }

    /// Writes until the file holds the latest change, `writeSpacing` between writes.
    private func writeBehind() {
        guard let state else { return }
        while true {
            let (text, number) = inner.withLock { ($0.memory.text, $0.changed) }
            let result = state.write(Array(text.utf8))
            let more = inner.withLock { s -> Bool in
                s.written = number
                switch result {
                case .success:
                    if s.failure != nil { Log.info("the camera memory is written again to \(state.path)") }
                    s.failure = nil
                case .failure(let failure):
                    if s.failure != failure.description {
                        Log.warning("cannot keep the camera memory: \(failure); the preferred cameras chosen hold until rotationd stops (give it a writable state directory: StateDirectory=rotationd in its unit, or STATE_DIRECTORY=DIR)")
                    }
                    s.failure = failure.description
                }
                if s.changed == number { s.writing = false }
                return s.changed != number
            }
            observer.withLock { $0 }?(number)
            guard more else { return }
            usleep(useconds_t(PreferenceStore.writeSpacing * 1e6))
        }
    }

    /// Why the memory cannot be written, when the last write failed.
    public var failure: String? { inner.withLock { $0.failure } }
}
