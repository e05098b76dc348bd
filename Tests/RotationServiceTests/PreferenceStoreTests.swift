import Foundation
import Glibc
import RotationEngine
import RotationProtocol
import RotationService
import Testing
import TestSupport

/// The camera memory on disk: written atomically behind the changes, a flood of them a few writes, and the answer to
/// `prefer` only once the choice is there.
@Suite("The camera memory on disk", .serialized)
struct PreferenceStoreTests {
    static let front = Camera(name: "front", facing: .front, mount: 0, device: "/dev/video0", busPath: "pci-0000:00:14.0-usb-0:5:1.0")
    static let back = Camera(name: "back", facing: .back, mount: 90, device: "/dev/video4", busPath: "pci-0000:00:14.0-usb-0:5:1.2")

    /// Counts the files renamed into `directory` (each atomic replacement is one) while `body` runs.
    static func countingReplacements(in directory: String, _ body: () throws -> Void) rethrows -> Int {
        let fd = inotify_init1(Int32(IN_NONBLOCK))
        defer { close(fd) }
        _ = inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO))
        try body()
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var offset = 0
            while offset < n {
                let length = buffer.withUnsafeBytes { $0.load(fromByteOffset: offset + 12, as: UInt32.self) }
                count += 1
                offset += 16 + Int(length)
            }
        }
        return count
    }

    @Test("a flood of choices is a few atomic writes, the last of them holding the last choice, and each change is reported once on disk")
    func floodIsFewWrites() throws {
        let dir = try ScratchDirectory()
        let store = PreferenceStore(directory: dir.path("state"))
        _ = store.observe([Self.front, Self.back], now: 0)
        store.flush()
        let reported = Reported()
        store.observeDurable { reported.add($0) }
        var last: UInt64 = 0
        let writes = Self.countingReplacements(in: dir.path("state")) {
            for i in 0..<2000 {
                let camera = i % 2 == 0 ? Self.front : Self.back
                last = store.choose(camera.identity, for: UInt32(1000 + i % 7)).change
            }
            store.flush()
        }
        #expect(writes >= 1 && writes <= 5, "\(writes) writes for 2000 choices")
        #expect(reported.values.last == last && reported.values == reported.values.sorted())
        let text = try String(contentsOfFile: dir.path("state/camera-memory"), encoding: .utf8)
        let read = CameraMemory.read(Array(text.utf8))
        #expect(read.problems.isEmpty && read.memory.choices.count == 7)
        // The last choice of user 1000 + (1999 % 7) was the back camera.
        #expect(read.memory.choice(for: UInt32(1000 + 1999 % 7))?.camera == Self.back.identity)
        #expect(!FileManager.default.fileExists(atPath: dir.path("state/.camera-memory.new")), "no temporary file left")
        let mode = try FileManager.default.attributesOfItem(atPath: dir.path("state/camera-memory"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a directory that cannot be written: every change is reported all the same, and the store says why")
    func unwritable() throws {
        let store = PreferenceStore(directory: "/dev/null/rotationd")
        let reported = Reported()
        store.observeDurable { reported.add($0) }
        let change = store.choose(Self.front.identity, for: 1000).change
        store.flush()
        #expect(reported.values.contains(change))
        #expect(store.failure?.contains("Not a directory") == true, "\(store.failure ?? "no failure")")
        #expect(store.choice(for: 1000)?.camera == Self.front.identity, "kept for the run")
    }

    @Test("in the service, 60 prefers sent at once are answered in order, each once the choice is on disk, in a few writes")
    func serverAnswersAfterTheWrite() throws {
        let dir = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("state"), withIntermediateDirectories: true)
        let store = PreferenceStore(directory: dir.path("state"))
        let initial = StateEvent(seq: 0, time: 1, state: .initial, cameras: [Self.front, Self.back], sensor: .ok)
        let listener = try ListeningSocket.bind(path: dir.path("s.sock"), mode: 0o600)
        let server = try SocketServer(listener: listener, identity: .init(sensor: nil), initial: initial, store: store)
        server.start()
        defer { server.close() }
        let client = try TestSocket(path: dir.path("s.sock"))
        _ = client.readLine()
        _ = client.readLine()
        var answers: [String] = []
        let writes = try Self.countingReplacements(in: dir.path("state")) {
            let commands = (0..<60).map { #"{"cmd":"prefer","camera":""# + ($0 % 2 == 0 ? "back" : "/dev/video0") + #""}"# }
            #expect(client.send(commands.joined(separator: "\n") + "\n"))
            for _ in 0..<60 {
                guard let line = client.readLine() else { break }
                // The first answer comes once a choice is on disk.
                if answers.isEmpty {
                    let text = (try? String(contentsOfFile: dir.path("state/camera-memory"), encoding: .utf8)) ?? ""
                    #expect(text.contains(#"{"uid":0,"#), "answered before the choice was on disk")
                }
                answers.append(line)
            }
            store.flush()
        }
        #expect(answers.count == 60 && answers.allSatisfy { JSONLine.type($0) == "state" })
        #expect(answers.enumerated().allSatisfy { i, line in line.contains(i % 2 == 0 ? #""preferred":"back""# : #""preferred":"front""#) })
        #expect(writes >= 1 && writes <= 10, "\(writes) writes")
        // Every answer is a change of this user's, one seq after the other.
        let seqs = answers.compactMap { JSONLine.int($0, "seq") }
        #expect(seqs == Array(1...60), "\(seqs.prefix(5))")
    }

    @Test("the answer to prefer waits for the write: held while the write is held, sent once it ends")
    func answerWaitsForTheWrite() throws {
        let dir = try ScratchDirectory()
        let state = dir.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // The store writes a new file first: a FIFO in its place holds the write in open() until a reader comes.
        #expect(mkfifo(state + "/.camera-memory.new", 0o600) == 0)
        let store = PreferenceStore(directory: state)
        let initial = StateEvent(seq: 0, time: 1, state: .initial, cameras: [Self.front, Self.back], sensor: .ok)
        let listener = try ListeningSocket.bind(path: dir.path("s.sock"), mode: 0o600)
        let server = try SocketServer(listener: listener, identity: .init(sensor: nil), initial: initial, store: store)
        server.start()
        defer { server.close() }
        let client = try TestSocket(path: dir.path("s.sock"))
        _ = client.readLine()
        _ = client.readLine()
        #expect(client.send(#"{"cmd":"prefer","camera":"back"}"# + "\n"))
        #expect(client.readLine(timeout: 0.5) == nil, "answered while the write was held")
        // A reader lets the write go on (a FIFO cannot be synced, so it fails: given up, the choice holds for the run).
        let reader = open(state + "/.camera-memory.new", O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let answer = try #require(client.readLine())
        #expect(JSONLine.type(answer) == "state" && answer.contains(#""preferred":"back""#), "\(answer)")
        store.flush()
        #expect(store.failure != nil)
    }

    /// The numbers reported on disk, from the store's queue.
    final class Reported: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [UInt64] = []
        func add(_ n: UInt64) { lock.lock(); list.append(n); lock.unlock() }
        var values: [UInt64] { lock.lock(); defer { lock.unlock() }; return list }
    }
}
