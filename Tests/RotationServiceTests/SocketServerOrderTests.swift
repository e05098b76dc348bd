import Foundation
import RotationProtocol
import RotationService
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The socket server in process: what a client that connects at the moment of a change is told.
@Suite("Socket server ordering", .serialized)
struct SocketServerOrderTests {
    @Test("a client that connects after a change was published is greeted with that change as the current state")
    func greetedWithTheLatestChange() throws {
        let dir = try ScratchDirectory()
        let server = try SocketServerLimitTests.server(in: dir, limits: ServerLimits())
        defer { server.close() }
        let cameras = [Camera(name: "back", facing: .back, mount: 90)]
        let rotations: [Rotation] = [.leftUp, .bottomUp, .rightUp, .normal]
        // Each change is published and a client connects right after, often before the server's thread has
        // woken up for the change: it must still be greeted with the change, not with the state before it
        // (which a service going idle would otherwise serve as a stale rotation).
        var stale: [String] = []
        for seq in 1...300 {
            let state = DeviceState(rotation: rotations[seq % 4], tilt: .vertical, flat: false, inputs: .accel)
            server.publish(StateEvent(seq: seq, time: Double(seq), state: state, cameras: cameras))
            let c = try TestSocket(path: dir.path("s.sock"))
            #expect(JSONLine.type(c.readLine(timeout: Tolerance.slowReply) ?? "") == "hello")
            let current = c.readLine(timeout: Tolerance.slowReply) ?? ""
            if JSONLine.int(current, "seq") != seq { stale.append("after change \(seq): \(current)") }
            c.close()
        }
        #expect(stale.isEmpty, "\(stale.count) of 300 clients were greeted with an older state; first: \(stale.first ?? "")")
    }
}
