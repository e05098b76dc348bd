/// A camera that was plugged in while the service watched, and when, in the order the service keeps of arrivals
/// and of users' choices.
///
/// The service recommends the most recent arrival that is not infrared to every user who has not chosen a camera
/// since it came (`Docs/cameras.md`, "Which camera to open"). It travels beside a state inside the service and is
/// never sent.
public struct CameraArrival: Sendable, Hashable {
    /// The camera's name in the state it goes with.
    public var name: String
    /// Its place among the arrivals and choices the service remembers: a later event has a larger number.
    public var order: UInt64

    /// Creates an arrival.
    public init(name: String, order: UInt64) {
        self.name = name
        self.order = order
    }
}
