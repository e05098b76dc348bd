/// How much a client may cost the service before it is coalesced or disconnected.
public struct ServerLimits: Sendable, Hashable {
    /// Unsent `state` events a client may have queued before they are coalesced into the latest one,
    /// which then carries `missed`.
    public var stateBacklog = 8
    /// Unsent `sample` messages a client may have queued before the backlog is dropped.
    public var sampleBacklog = 64
    /// Bytes a client may have queued in the service (replies included); beyond this it is flooding.
    public var maxQueuedBytes = 64 * 1024
    /// Seconds a client may leave data unread without any progress before it is disconnected.
    public var stuckTimeout: Double = 30
    /// Commands per second a client may send on average.
    public var commandRate: Double = 100
    /// Commands a client may send in a burst.
    public var commandBurst: Double = 200
    /// The kernel send buffer per client, in bytes; small, so that a stalled reader is noticed early.
    public var sendBuffer: Int32 = 16 * 1024
    /// Most simultaneous clients; further connections are closed at once.
    public var maxClients = 4096

    /// The defaults.
    public init() {}
}
