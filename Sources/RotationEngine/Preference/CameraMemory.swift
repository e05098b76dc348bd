import RotationProtocol

/// What the service remembers of cameras across restarts: which camera arrived when, and each user's preferred
/// camera. A value with no I/O; `PreferenceStore` keeps it on disk (`CameraMemory+Text`).
///
/// Every arrival and every choice takes the next number of one counter, so that "chosen after it came" is a
/// comparison of two numbers, whatever the clocks did across restarts and reboots.
///
/// - A camera present at the first look of a service that remembered nothing is not an arrival (order 0).
/// - A camera that appears later is an arrival, unless it left less than `returnWindow` seconds of the service's
///   monotonic clock before (a dock re-enumerating, or USB devices removed and added again around a system sleep,
///   which CLOCK_MONOTONIC does not count): it then keeps what it was.
/// - A camera that was attached when the last run ended keeps what it was when it is attached at this run's first
///   look, or appears within `startWindow` seconds after it (enumerated late: a boot, a driver loaded after the
///   service); one that was seen leaving, or left while the service was stopped, and is attached now, arrived anew.
public struct CameraMemory: Sendable, Hashable {
    /// One remembered camera.
    public struct Record: Sendable, Hashable {
        /// When it last arrived (0: present when the service first looked, never an arrival).
        public var order: UInt64
        /// Whether it was attached at the last look.
        public var attached: Bool
        /// Whether it sees infrared only.
        public var infrared: Bool

        /// Creates a record.
        public init(order: UInt64, attached: Bool, infrared: Bool = false) {
            self.order = order
            self.attached = attached
            self.infrared = infrared
        }
    }

    /// The most cameras remembered; beyond it the detached one that arrived longest ago is forgotten.
    public static let maxCameras = 64
    /// The most users whose choice is kept; beyond it the oldest choice is forgotten.
    public static let maxUsers = 256
    /// Seconds (CLOCK_MONOTONIC, which stops while the system sleeps) within which a camera that left and comes
    /// back is the same arrival as before.
    public static let returnWindow = 5.0
    /// Seconds after the first look within which a camera the last run saw attached is the same arrival as before.
    public static let startWindow = 30.0

    /// The last number given to an arrival or a choice.
    public private(set) var counter: UInt64 = 0
    /// The cameras, by identity (`Camera.identity`).
    public private(set) var cameras: [String: Record] = [:]
    /// Each user's preferred camera, by user id.
    public private(set) var choices: [UInt32: CameraChoice] = [:]
    /// Whether nothing was remembered before this run: the cameras of the first look are then not arrivals.
    public private(set) var firstLook: Bool
    /// Until when (monotonic seconds) each camera that left, or was missing at the first look, is the same arrival
    /// if it comes back.
    private var departed: [String: Double] = [:]
    /// Whether this run has looked at the cameras yet.
    private var looked = false

    /// An empty memory; `remembered` says whether it stands for what an earlier run kept (false: the service's
    /// first start, or nothing could be read).
    public init(remembered: Bool = false) { firstLook = !remembered }

    /// Notes the cameras attached now, at `now` (monotonic seconds); returns whether the memory changed.
    @discardableResult
    public mutating func observe(_ attached: [Camera], now: Double) -> Bool {
        let before = (counter, cameras)
        let present = Set(attached.map(\.identity))
        var arrived: [String] = []
        for cam in attached {
            let id = cam.identity
            if let old = cameras[id], old.attached || isReturn(id, now: now) {
                cameras[id]?.attached = true
            } else if !looked && firstLook {
                cameras[id] = Record(order: 0, attached: true)
            } else {
                arrived.append(id)
            }
            cameras[id]?.infrared = cam.infrared
        }
        if !arrived.isEmpty {
            counter += 1
            for (i, id) in arrived.enumerated() {
                // One look's arrivals share a moment: the first in the list counts as the latest.
                cameras[id] = Record(order: counter + UInt64(arrived.count - 1 - i), attached: true,
                                     infrared: attached.first { $0.identity == id }?.infrared ?? false)
            }
            counter += UInt64(arrived.count - 1)
        }
        for (id, record) in cameras where record.attached && !present.contains(id) {
            cameras[id]?.attached = false
            departed[id] = now + (looked ? Self.returnWindow : Self.startWindow)
        }
        departed = departed.filter { !present.contains($0.key) && now <= $0.value }
        looked = true
        firstLook = false
        trimCameras()
        return before.0 != counter || before.1 != cameras
    }

    private func isReturn(_ id: String, now: Double) -> Bool {
        departed[id].map { now <= $0 } ?? false
    }

    /// The camera among `attached` that arrived last and is not infrared, or nil when none of them is an arrival.
    public func arrival(among attached: [Camera]) -> CameraArrival? {
        var best: CameraArrival?
        for cam in attached where !cam.infrared {
            guard let record = cameras[cam.identity], record.attached, record.order > 0 else { continue }
            if best.map({ record.order > $0.order }) ?? true { best = CameraArrival(name: cam.name, order: record.order) }
        }
        return best
    }

    /// The preferred camera of user `uid`, or nil.
    public func choice(for uid: UInt32) -> CameraChoice? { choices[uid] }

    /// Makes the camera whose identity is `camera` the preferred one of user `uid`, after every arrival so far;
    /// nil forgets the user's choice (which is not a choice: an arrival is recommended again). Returns the choice.
    @discardableResult
    public mutating func choose(_ camera: String?, for uid: UInt32) -> CameraChoice? {
        guard let camera else {
            choices[uid] = nil
            return nil
        }
        counter += 1
        let choice = CameraChoice(camera: camera, order: counter)
        choices[uid] = choice
        if choices.count > Self.maxUsers, let oldest = choices.min(by: { $0.value.order < $1.value.order })?.key {
            choices[oldest] = nil
        }
        return choice
    }

    /// Forgets the detached cameras that arrived longest ago while more than `maxCameras` are remembered.
    private mutating func trimCameras() {
        guard cameras.count > Self.maxCameras else { return }
        let detached = cameras.filter { !$0.value.attached }.sorted { ($0.value.order, $0.key) < ($1.value.order, $1.key) }
        for (id, _) in detached.prefix(cameras.count - Self.maxCameras) { cameras[id] = nil }
    }

    /// Restores remembered state (the text reader's way in): the counter at least as large as every order.
    mutating func restore(counter: UInt64, cameras: [String: Record], choices: [UInt32: CameraChoice]) {
        self.cameras = cameras
        self.choices = choices
        let highest = (cameras.values.map(\.order) + choices.values.map(\.order)).max() ?? 0
        self.counter = max(counter, highest)
    }
}
