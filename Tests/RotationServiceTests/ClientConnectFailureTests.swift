import Foundation
import RotationClient
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A client library lives in somebody else's process: a failed connection attempt must not touch any
/// descriptor but its own.
@Suite("Client connection failures")
struct ClientConnectFailureTests {
    @Test("a connection attempt that fails closes its own socket once, never a descriptor another thread has just opened")
    func failedConnectClosesOnce() throws {
        let missing = "/tmp/rs-no-such-\(UUID().uuidString.prefix(8)).sock"
        let stop = Atomic<Bool>(false)
        let attempts = Atomic<Int>(0)
        // One thread keeps failing to connect, as a client does while the service is down.
        let connector = Thread {
            while !stop.load(ordering: .relaxed) {
                _ = try? LineConnection(path: missing)
                attempts.add(1, ordering: .relaxed)
            }
        }
        connector.start()
        // Meanwhile this thread opens pipes, which take the lowest free descriptor numbers, and uses them: a
        // number closed twice by the connector would fail here with EBADF.
        var broken = 0
        for _ in 0..<20_000 {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { continue }
            var byte: UInt8 = 7
            if write(fds[1], &byte, 1) != 1 || read(fds[0], &byte, 1) != 1 { broken += 1 }
            close(fds[0])
            close(fds[1])
        }
        stop.store(true, ordering: .relaxed)
        #expect(Poll.until(timeout: Tolerance.slowReply) { connector.isFinished }, "the connector thread did not stop")
        #expect(attempts.load(ordering: .relaxed) > 0)
        #expect(broken == 0, "\(broken) of 20000 pipes lost a descriptor to the failing connection attempts")
    }
}
