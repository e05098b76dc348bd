import Foundation
import RotationProtocol
@testable import RotationSensors
import Synchronization
import Testing
import TestSupport

/// The `SensorSource` threading contract, in-process on the build machine's own sysfs (normally without any
/// IIO device, where the source reports `none`; with one, `ok` followed by samples).
@Suite("Sensor source threading", .serialized)
struct SensorSourceTests {
    final class Recorder: Sendable {
        let statuses = Mutex<[SensorStatus]>([])
        let samples = Mutex(0)
        let threads = Mutex<Set<String>>([])

        func note() {
            let id = "\(pthread_self())"
            threads.withLock { _ = $0.insert(id) }
        }

        var events: Int { statuses.withLock { $0.count } + samples.withLock { $0 } }

        func waitForStatus(timeout: Double) -> Bool {
            Poll.until(timeout: timeout) { !statuses.withLock { $0.isEmpty } }
        }
    }

    @Test("start reports a status from its own thread; after stop returns no callback runs; a second start works")
    func stopEndsCallbacks() {
        let source = SensorSource()
        let rec = Recorder()
        source.start(onSample: { _ in rec.samples.withLock { $0 += 1 }; rec.note() },
                     onStatus: { s, _ in rec.statuses.withLock { $0.append(s) }; rec.note() })
        #expect(rec.waitForStatus(timeout: Tolerance.slowReply))
        #expect(source.isRunning)
        source.stop()
        #expect(!source.isRunning)
        let after = rec.events
        // A time, not a wait: no callback may come in the 0.3 s after stop().
        usleep(300_000)
        #expect(rec.events == after, "callbacks ran after stop() returned")
        #expect(!rec.threads.withLock { $0.contains("\(pthread_self())") }, "a callback ran on the caller's thread")

        rec.statuses.withLock { $0.removeAll() }
        source.start(onSample: { _ in }, onStatus: { s, _ in rec.statuses.withLock { $0.append(s) } })
        #expect(rec.waitForStatus(timeout: Tolerance.slowReply))
        source.stop()
        #expect(!source.isRunning)
    }

    @Test("stop called from inside a callback returns at once and the thread ends")
    func stopFromCallback() {
        let source = SensorSource()
        let rec = Recorder()
        source.start(onSample: { _ in source.stop() },
                     onStatus: { s, _ in rec.statuses.withLock { $0.append(s) }; source.stop() })
        #expect(rec.waitForStatus(timeout: Tolerance.slowReply))
        _ = Poll.until(timeout: Tolerance.slowReply) { !source.isRunning }
        #expect(!source.isRunning)
        let after = rec.events
        // A time, not a wait: no callback may come in the 0.3 s after the thread ended.
        usleep(300_000)
        #expect(rec.events == after)
    }

    @Test("stop and start from inside a callback keep the thread going with the new callbacks, which get the status afresh")
    func restartFromCallback() {
        let source = SensorSource()
        let first = Recorder(), second = Recorder()
        let restarted = Mutex(false)
        source.start(onSample: { _ in first.samples.withLock { $0 += 1 } },
                     onStatus: { s, _ in
                         first.statuses.withLock { $0.append(s) }
                         first.note()
                         guard !restarted.withLock({ let was = $0; $0 = true; return was }) else { return }
                         source.stop()
                         source.start(onSample: { _ in second.samples.withLock { $0 += 1 } },
                                      onStatus: { s, _ in second.statuses.withLock { $0.append(s) }; second.note() })
                     })
        #expect(second.waitForStatus(timeout: Tolerance.slowReply), "the new callbacks never got a status")
        #expect(first.statuses.withLock { $0.count } == 1, "the old callbacks kept running")
        #expect(source.isRunning)
        // Same thread throughout, and a later stop from outside joins it normally.
        #expect(first.threads.withLock { $0 } == second.threads.withLock { $0 })
        source.stop()
        #expect(!source.isRunning)
    }

    @Test("stop on a source that never started, or twice, does nothing")
    func stopIsIdempotent() {
        let source = SensorSource()
        source.stop()
        source.stop()
        #expect(!source.isRunning)
    }
}
