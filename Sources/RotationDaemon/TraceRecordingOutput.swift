import RotationProtocol
import RotationSensors
import RotationService
import Synchronization

/// A publisher output that writes every raw sample to a trace file (`--record`); state changes are not kept.
final class TraceRecordingOutput: PublisherOutput, @unchecked Sendable {
    private let recorder: TraceRecorder
    private let count = Atomic<Int>(0)

    /// Records through `recorder`, which this output then owns.
    init(recorder: TraceRecorder) { self.recorder = recorder }

    /// State changes are not part of a trace.
    func publish(_ event: StateEvent) {}

    /// Appends the sample to the trace.
    func publish(sample: Sample) {
        recorder.record(sample)
        count.add(1, ordering: .relaxed)
    }

    /// How many samples were taken so far, from any thread.
    var samples: Int { count.load(ordering: .relaxed) }

    /// Always true: a recording keeps every sample.
    var wantsSamples: Bool { true }

    /// Writes what the recorder still holds (a recording shorter than its header wait).
    func close() { recorder.finish() }
}
