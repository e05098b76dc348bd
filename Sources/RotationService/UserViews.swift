import RotationEngine
import RotationProtocol

/// What each user sees of the latest state: the camera recommended to that user, and a `seq` of the user's own.
///
/// A user's choice changes only that user's `preferred`, so such a change goes to that user's connections alone.
/// To keep `seq`'s promise (one more with every change a connection receives, so a jump means changes were
/// missed), each user counts the changes that were theirs alone, and sees the service's `seq` plus that count.
/// Used on the server's thread only.
final class UserViews {
    /// The most users whose own changes are counted; beyond it, those with no connection are forgotten.
    static let limit = 4096

    private let store: PreferenceStore
    /// The changes each user had alone, this run.
    private var own: [UInt32: Int] = [:]
    /// One user's state for the latest event and its line, shared by the user's connections.
    final class Seen {
        let event: StateEvent
        let line: [UInt8]
        init(_ event: StateEvent) {
            self.event = event
            line = Array((event.jsonLine + "\n").utf8)
        }
    }

    /// Each user's state for the latest event, encoded, until either changes.
    private var cache: [UInt32: Seen] = [:]
    private var cachedSeq = -1

    init(store: PreferenceStore) { self.store = store }

    /// `latest` as user `uid` sees it (nil: a peer whose user is unknown sees the recommendation for no choice).
    func event(_ latest: StateEvent, for uid: UInt32?) -> StateEvent {
        guard let uid else { return latest }
        var e = latest
        e.seq += own[uid] ?? 0
        e.preferred = PreferredCamera.pick(cameras: e.cameras, state: e.state, arrival: e.arrival,
                                           choice: store.choice(for: uid))?.name
        return e
    }

    /// `event(latest, for: uid)` and its line with the newline, encoded once for all of the user's connections.
    func line(_ latest: StateEvent, for uid: UInt32?) -> Seen {
        guard let uid else { return Seen(latest) }
        if cachedSeq != latest.seq {
            cache.removeAll(keepingCapacity: true)
            cachedSeq = latest.seq
        }
        if let hit = cache[uid] { return hit }
        let entry = Seen(event(latest, for: uid))
        cache[uid] = entry
        return entry
    }

    /// Counts a change of `uid`'s own (its preferred camera), after which its state is worked out again; `connected`
    /// are the users with a connection, kept when the count must be trimmed.
    func countOwnChange(for uid: UInt32, connected: Set<UInt32>) {
        own[uid, default: 0] += 1
        cache[uid] = nil
        if own.count > UserViews.limit { own = own.filter { connected.contains($0.key) } }
    }
}
