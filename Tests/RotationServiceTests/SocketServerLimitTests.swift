import Foundation
import RotationProtocol
import RotationService
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The socket server in process, with limits small enough to reach.
@Suite("Socket server limits", .serialized)
struct SocketServerLimitTests {
    static func server(in dir: ScratchDirectory, limits: ServerLimits) throws -> SocketServer {
        let listener = try ListeningSocket.bind(path: dir.path("s.sock"), mode: 0o600)
        let cameras = [Camera(name: "back", facing: .back, mount: 90)]
        let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: cameras, sensor: .ok)
        let server = try SocketServer(listener: listener, identity: .init(sensor: "test"), initial: initial, limits: limits)
        server.start()
        return server
    }

    @Test("a connection beyond maxClients gets a too-many-clients error and is closed; the others stay served")
    func refusesBeyondMaxClients() throws {
        let dir = try ScratchDirectory()
        var limits = ServerLimits()
        limits.maxClients = 3
        let server = try Self.server(in: dir, limits: limits)
        defer { server.close() }
        let admitted = try (0..<3).map { _ in try TestSocket(path: dir.path("s.sock")) }
        for c in admitted { #expect(JSONLine.type(c.readLine() ?? "") == "hello") }
        for _ in 0..<5 {
            let extra = try TestSocket(path: dir.path("s.sock"))
            let lines = try #require(extra.readToEnd(timeout: Tolerance.reply), "the extra connection is closed")
            #expect(lines.count == 1 && JSONLine.object(lines[0])?["code"] as? String == "too-many-clients", "\(lines)")
        }
        server.publish(StateEvent(seq: 1, time: 1, state: DeviceState(rotation: .leftUp, tilt: .vertical, flat: false, inputs: .accel),
                                  cameras: [Camera(name: "back", facing: .back, mount: 90)]))
        for c in admitted {
            _ = c.readLine() // the current state sent on connect
            #expect(JSONLine.int(c.readLine() ?? "", "seq") == 1, "an admitted client still receives changes")
        }
        #expect(server.clientCount == 3)
    }

    @Test("stopAccepting closes the listener and silences the client observer, while connected clients stay served")
    func stopAcceptingBeforeTheInputStops() throws {
        let dir = try ScratchDirectory()
        let listener = try ListeningSocket.bind(path: dir.path("s.sock"), mode: 0o600)
        let initial = StateEvent(seq: 0, time: .nan, state: .initial, cameras: [], sensor: .ok)
        let server = try SocketServer(listener: listener, identity: .init(sensor: nil), initial: initial)
        let events = Counter()
        server.observeClients { _ in events.add() }
        server.start()
        defer { server.close() }
        let c = try TestSocket(path: dir.path("s.sock"))
        #expect(JSONLine.type(c.readLine() ?? "") == "hello")
        server.stopAccepting()
        let seen = events.value
        #expect(seen == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path("s.sock")), "the socket file is gone")
        #expect((try? TestSocket(path: dir.path("s.sock"))) == nil, "nobody can connect any more")
        c.close()
        // Once the loop has dropped the client, and has stopped (close() joins its thread), any report of
        // the leaving client would have been made.
        _ = Poll.until(timeout: Tolerance.slowReply) { server.clientCount == 0 }
        #expect(server.clientCount == 0, "the loop noticed the client leave")
        server.close()
        #expect(events.value == seen, "a client leaving after stopAccepting is not reported")
    }

    @Test("the service refuses, at startup, cameras whose lines could exceed 4096 bytes")
    func startupLineCheck() throws {
        let ok = SocketServer.widestCameras
        #expect(throws: Never.self) { try SocketServer.checkLineLengths(cameras: ok) }
        let many = (0..<40).map { _ in Camera(name: String(repeating: "\u{1}", count: 32), facing: .external, mount: 270) }
        do {
            try SocketServer.checkLineLengths(cameras: many)
            Issue.record("40 cameras with escaped names should not fit")
        } catch {
            #expect("\(error)".contains("fewer cameras or shorter camera names"), "\(error)")
        }
    }
}

/// A thread-safe counter for callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
