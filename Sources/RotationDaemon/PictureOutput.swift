import RotationEngine
import RotationPicture
import RotationProtocol
import RotationService

/// A publisher output that keeps every change the engine decided, with the rules behind it, and counts the
/// samples fed, for a picture of a replay (`--picture`, `--report`).
///
/// Only a printing replay uses it, on the replay's one thread; the changes are kept in memory until `recording`.
final class PictureOutput: PublisherOutput, @unchecked Sendable {
    private var fed = 0
    private var changes: [PictureRecording.Change] = []

    /// A status or camera change: not drawn.
    func publish(_ event: StateEvent) {}

    /// Keeps a change the engine decided.
    func publish(_ event: StateEvent, reason: ChangeReason) {
        changes.append(PictureRecording.Change(time: event.time, state: event.state, reason: reason))
    }

    /// Counts a sample fed.
    func publish(sample: Sample) { fed += 1 }

    /// Always: the picture says how many samples the engine was fed.
    var wantsSamples: Bool { true }

    /// The trace's `samples` (all of them, as recorded: a live capture skips some while the device is still, and
    /// a line drawn through the skipped ones would show a move nobody saw) and the changes kept, titled `title`;
    /// the subtitle says what the samples hold and how many the engine was fed.
    func recording(title: String, samples trace: [Sample], options: DaemonOptions) -> PictureRecording {
        var samples = trace
        if options.noGyro { for i in samples.indices { samples[i].angularVelocity = nil } }
        let seconds = (samples.last?.time ?? 0) - (samples.first?.time ?? 0)
        var inputs = ["accelerometer"]
        if samples.contains(where: { $0.angularVelocity != nil }) { inputs.append("gyroscope") }
        if samples.contains(where: { $0.base != nil }) { inputs.append("base accelerometer") }
        if samples.contains(where: { $0.hinge != nil }) { inputs.append("hinge sensor") }
        if samples.contains(where: { $0.tabletMode != nil || $0.lidClosed != nil }) { inputs.append("switches") }
        let pace = options.fullRate ? "every one (--full-rate)" : "\(fed), those a live capture reads"
        let subtitle = "\(ServiceVersion.name) \(ServiceVersion.current): \(samples.count) samples over "
            + "\(JSONWriter.format(seconds, decimals: 1)) s (\(inputs.joined(separator: ", "))); the engine decided from \(pace)"
            + (options.noGyro ? ", without the gyroscope (--no-gyro)" : "")
        return PictureRecording(title: title, subtitle: subtitle, samples: samples, changes: changes)
    }
}
