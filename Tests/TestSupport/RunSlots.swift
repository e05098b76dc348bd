import Foundation
import Synchronization

/// A limit on how many programs a test process runs at once, for tests that await them.
///
/// Tests that play a trace in real time spend their time waiting, so a test process can run many of them side
/// by side; but each emulated device has a feeder that must keep its own clock, which too many at once on a
/// small machine would not. `acquire()` waits, without holding a thread, until one of the slots is free.
public final class RunSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Creates a limit of `count` programs at once (at least one).
    public init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// Two slots per processor: what the emulated devices' feeders keep pace with beside the other test
    /// processes.
    public static func perProcessor() -> RunSlots {
        RunSlots(2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Waits until a slot is free and takes it; give it back with `release()`.
    public func acquire() async {
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.free > 0 {
                    s.free -= 1
                    return true
                }
                s.waiting.append(ready)
                return false
            }
            if now { ready.resume() }
        }
    }

    /// Gives back a slot taken by `acquire()`, to the longest waiting caller if there is one.
    public func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty {
                s.free += 1
                return nil
            }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
