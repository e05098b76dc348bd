import RotationEngine
import RotationProtocol

/// One destination for published changes: the socket server, standard output, a recording.
///
/// Methods are called on an input's thread (the sensor's or the camera inventory's), one call at a time, in
/// publication order: the `EngineRunner` serializes its inputs. An output must
/// return quickly: anything that can wait on a reader belongs on the output's own thread or queue.
public protocol PublisherOutput: AnyObject, Sendable {
    /// Takes one state change (or a sensor status change) as a value.
    func publish(_ event: StateEvent)
    /// Takes one change the engine decided, with the rules behind it (`ChangeReason`); an output that does not
    /// show them takes the event alone.
    func publish(_ event: StateEvent, reason: ChangeReason)
    /// Takes one raw sample; called only while `wantsSamples` is true.
    func publish(sample: Sample)
    /// Whether this output currently needs raw samples.
    var wantsSamples: Bool { get }
    /// Flushes and releases the output; nothing is published to it afterwards.
    func close()
}

extension PublisherOutput {
    /// Outputs that do not show the rules take the event alone.
    public func publish(_ event: StateEvent, reason: ChangeReason) { publish(event) }
    /// Outputs that only carry state changes ignore samples.
    public func publish(sample: Sample) {}
    /// Outputs that only carry state changes do not need samples.
    public var wantsSamples: Bool { false }
    /// Outputs with nothing to release do nothing.
    public func close() {}
}
