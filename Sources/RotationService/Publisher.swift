import RotationEngine
import RotationProtocol

/// Fans every change out to a fixed collection of outputs.
///
/// Adding a kind of output means adding an element, never a branch here.
public final class Publisher: Sendable {
    /// The outputs, in the order they are served.
    public let outputs: [any PublisherOutput]

    /// Creates a publisher over `outputs`.
    public init(outputs: [any PublisherOutput]) { self.outputs = outputs }

    /// Hands `event` to every output.
    public func publish(_ event: StateEvent) {
        for o in outputs { o.publish(event) }
    }

    /// Hands `event`, a change the engine decided, and the rules behind it to every output.
    public func publish(_ event: StateEvent, reason: ChangeReason) {
        for o in outputs { o.publish(event, reason: reason) }
    }

    /// Whether any output needs raw samples right now.
    public var wantsSamples: Bool { outputs.contains { $0.wantsSamples } }

    /// Hands `sample` to the outputs that want samples.
    public func publish(sample: Sample) {
        for o in outputs where o.wantsSamples { o.publish(sample: sample) }
    }

    /// Closes every output.
    public func close() {
        for o in outputs { o.close() }
    }
}
