import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The real `rotationd --serve` on replayed synthetic traces, driven through raw sockets.
@Suite("Socket service", .serialized)
struct SocketServiceTests {
    @Test("a client gets hello, then the current state at once; commands get answers and bad ones an error")
    func helloStateAndCommands() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        // Held upright throughout: the first decision is the only change, so once it has arrived every later
        // line on the connection answers a command (a change published meanwhile would come between them).
        // Long enough that samples still flow when they are subscribed to.
        try SyntheticTraces.write(to: trace, lead: 30, poses: [], hold: 0)
        let reference = try ServiceRun.referenceLines(trace: trace, in: dir)
        try #require(reference.count == 1, "the upright trace makes one change: \(reference)")
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let clock = try #require(run.replayClock(), "\(run.child.stderr)")
        let c = try TestSocket(path: run.socket)
        let hello = try #require(c.readLine().flatMap(JSONLine.object))
        #expect(hello["type"] as? String == "hello")
        #expect(hello["protocol"] as? Int == 1)
        #expect(hello["sensor"] as? String == "replay:\(trace)")
        #expect((hello["cameras"] as? [[String: Any]])?.map { $0["name"] as? String } == ["front", "back"])
        #expect(hello["events"] as? [String] == ["state"])
        let first = try #require(c.readLine())
        #expect(JSONLine.type(first) == "state")
        // Connected before the first decision, the client gets it next, as a change.
        // Served, it is stamped on CLOCK_MONOTONIC, as a live sensor's would be.
        let decision: String
        if JSONLine.int(first, "seq") == 0 {
            decision = c.readLine() ?? ""
            #expect(clock.matches(decision, reference[0]), "the first decision follows the state before it: \(decision)")
        } else {
            decision = first
            #expect(clock.matches(first, reference[0]), "\(first)")
        }

        c.send("{\"cmd\":\"state\"}\n")
        #expect(c.readLine() == decision, "the answer to state is the current state")
        c.send("this is not json\n")
        let error = try #require(c.readLine().flatMap(JSONLine.object))
        #expect(error["type"] as? String == "error" && error["code"] as? String == "malformed")
        c.send("{\"cmd\":\"hello\"}\n")
        #expect(JSONLine.type(c.readLine() ?? "") == "hello", "the connection stays open after a malformed line")
        c.send("{\"cmd\":\"nope\"}\n[1,2]\n{\"cmd\":\"subscribe\",\"events\":[\"bogus\"]}\n")
        let codes = (0..<3).compactMap { _ in c.readLine().flatMap(JSONLine.object)?["code"] as? String }
        #expect(codes == ["unknown-command", "bad-command", "bad-argument"])

        // Raw samples are for root (and a --samples-group this run does not name): the answer depends on who runs the test.
        c.send("{\"cmd\":\"subscribe\",\"events\":[\"samples\"]}\n")
        let reply = try #require(c.readLine().flatMap(JSONLine.object))
        if geteuid() == 0 {
            #expect(hello["samples"] as? Bool == true)
            #expect(reply["type"] as? String == "subscribed" && reply["events"] as? [String] == ["samples"])
            let sample = try #require(c.readLine().flatMap(JSONLine.object))
            #expect(sample["type"] as? String == "sample" && sample["x"] is Double && sample["t"] is Double)
        } else {
            #expect(hello["samples"] as? Bool == false)
            #expect(reply["type"] as? String == "error" && reply["code"] as? String == "forbidden", "\(reply)")
            c.send("{\"cmd\":\"hello\"}\n")
            #expect(JSONLine.type(c.readLine() ?? "") == "hello", "a refused subscription leaves the connection open")
        }
        #expect(run.child.stop() == 0)
    }

    @Test("200 concurrent subscribers each get every change, byte-identical to each other and to the replay output but for its clock, in order without gaps")
    func twoHundredSubscribers() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 8, count: 24, hold: 0.4)
        let reference = try ServiceRun.referenceLines(trace: trace, in: dir)
        try #require(reference.count >= 20, "the trace should make at least 20 changes")
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), extra: ["--speed", "4"], in: dir)
        #expect(run.waitUntilServing())
        let clock = try #require(run.replayClock(), "\(run.child.stderr)")
        #expect(clock.speed == 4)
        var clients: [TestSocket] = []
        for _ in 0..<200 { clients.append(try TestSocket(path: run.socket)) }
        var received = [[String]](repeating: [], count: clients.count)
        let lastSeq = reference.count
        let deadline = Date().addingTimeInterval(Tolerance.longRun)
        var done = Set<Int>()
        while done.count < clients.count && Date() < deadline {
            var fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (i, c) in clients.enumerated() where fds[i].revents != 0 {
                c.pump()
                while let line = c.takeLine() {
                    if JSONLine.type(line) == "state", JSONLine.int(line, "seq") != 0 { received[i].append(line) }
                }
                if received[i].last.flatMap({ JSONLine.int($0, "seq") }) == lastSeq { done.insert(i) }
            }
        }
        #expect(done.count == clients.count, "only \(done.count) of 200 subscribers saw the last change")
        for (i, lines) in received.enumerated() {
            // Connected during the upright lead, each saw the state before any decision (seq 0, skipped) or the
            // first decision, and then every later one.
            let expected = Array(reference[0..<lastSeq])
            if lines != received[0] || lines.count != expected.count || !zip(lines, expected).allSatisfy(clock.matches) {
                Issue.record("subscriber \(i) got \(lines.count) states, first seq \(lines.first.flatMap { JSONLine.int($0, "seq") } ?? -1); expected \(expected.count) identical to the replay output but for t")
                break
            }
        }
        #expect(run.child.stop() == 0)
    }

    @Test("a subscriber that stops reading is coalesced with missed counts, a stuck one is dropped, others stay prompt")
    func slowSubscribers() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 1, count: 200, hold: 0.3)
        let reference = try ServiceRun.referenceLines(trace: trace, in: dir)
        try #require(reference.count >= 150)
        let lastSeq = reference.count
        // The stuck client's timeout is longer than the replay (4 s at this speed), so that it is still
        // connected, its buffer full, while the prompt reader takes in every change.
        let speed = 15.0, napSeconds = 1.2, stuckTimeout = 6.0
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"),
                                 extra: ["--speed", "\(Int(speed))", "--client-timeout", "\(stuckTimeout)"], in: dir)
        #expect(run.waitUntilServing())
        let stuck = try TestSocket(path: run.socket)     // never reads
        let napper = try TestSocket(path: run.socket)    // reads in bursts, napSeconds apart
        let reader = try TestSocket(path: run.socket)    // reads at once
        var napperLines: [String] = []
        var readerSeqs: [Int] = []
        var arrivals: [Double] = []
        var times: [Double] = []
        var stuckGoneBeforeLast = false
        var nextNap = Date().addingTimeInterval(napSeconds)
        let deadline = Date().addingTimeInterval(Tolerance.longRun)
        while readerSeqs.last != lastSeq && Date() < deadline {
            var p = pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 20)
            reader.pump()
            while let line = reader.takeLine() {
                guard JSONLine.type(line) == "state", let seq = JSONLine.int(line, "seq") else { continue }
                readerSeqs.append(seq)
                arrivals.append(ProcessInfo.processInfo.systemUptime)
                times.append(JSONLine.object(line)?["t"] as? Double ?? .nan)
            }
            if Date() >= nextNap {
                napper.pump()
                while let line = napper.takeLine() { napperLines.append(line) }
                nextNap = Date().addingTimeInterval(napSeconds)
            }
        }
        // Whether the service has closed the stuck connection, seen without reading from it (which would
        // make room in its buffer): a hang-up is reported even when no event is asked for.
        var probe = pollfd(fd: stuck.fd, events: 0, revents: 0)
        _ = poll(&probe, 1, 0)
        stuckGoneBeforeLast = probe.revents & Int16(POLLHUP | POLLERR) != 0
        var unread: Int32 = 0
        _ = ioctl(stuck.fd, UInt(FIONREAD), &unread)

        #expect(readerSeqs.last == lastSeq, "the prompt reader saw every change up to the last")
        if let first = readerSeqs.first {
            #expect(readerSeqs == Array(first...lastSeq), "the prompt reader saw no gap")
        }
        // The order of events, not their timing, shows that nobody waited for the stuck client: the prompt
        // reader had every change while the client that never read was still connected, holding far fewer
        // bytes than the changes make.
        let allBytes = reference.reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(!stuckGoneBeforeLast, "the stuck client was still connected when the prompt reader had the last change")
        #expect(Int(unread) < allBytes / 2, "the stuck client holds \(unread) unread bytes of \(allBytes)")

        // Each change is due when the paced replay reaches its sample: its t, on CLOCK_MONOTONIC (trace time /
        // speed after the replay's start). The clocks are compared through the quickest delivery, so each lateness is relative to that one;
        // the state sent on connect (due before the reader was there) is left out. The typical delivery is
        // prompt; a single late one can be the test's own process waiting for a busy processor, so the worst
        // is only held to less than a nap, the shortest wait that being held up by the napper would cause
        // (the latency itself is measured by scripts/bench-fanout.sh).
        let offsets = zip(arrivals, times).dropFirst().map { $0 - $1 }.filter(\.isFinite)
        let start = offsets.min() ?? 0
        let lateness = offsets.map { $0 - start }
        let sorted = lateness.sorted()
        let median = sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        let worst = sorted.last ?? .infinity
        print("prompt reader: \(lateness.count) changes, one every \(Int(0.3 / speed * 1000)) ms; lateness p50 \(Int(median * 1000)) ms, max \(Int(worst * 1000)) ms")
        #expect(lateness.count >= 150)
        #expect(median < Tolerance.fanoutMedian, "half the changes reached the prompt reader more than \(Int(median * 1000)) ms after the replay produced them")
        #expect(worst < napSeconds, "a change reached the prompt reader \(Int(worst * 1000)) ms after the replay produced it")

        // The napper catches up: its stream may skip, but every skip is announced by `missed`, and it ends on
        // the latest state.
        let napperEnd = Date().addingTimeInterval(Tolerance.slowReply)
        while !napperLines.contains(where: { JSONLine.int($0, "seq") == lastSeq }) && Date() < napperEnd {
            guard let line = napper.readLine(timeout: napperEnd.timeIntervalSinceNow) else { break }
            napperLines.append(line)
        }
        let states = napperLines.filter { JSONLine.type($0) == "state" }
        var consistent = true
        var missedTotal = 0
        for (a, b) in zip(states, states.dropFirst()) {
            let sa = JSONLine.int(a, "seq") ?? 0, sb = JSONLine.int(b, "seq") ?? 0
            let missed = JSONLine.int(b, "missed") ?? 0
            missedTotal += missed
            if sb - sa - 1 != missed { consistent = false }
        }
        #expect(consistent, "each gap in the napper's sequence equals the missed count on the event after it")
        #expect(missedTotal > 0, "the napper fell behind and was coalesced")
        #expect(states.last.flatMap { JSONLine.int($0, "seq") } == lastSeq, "the napper still ends on the latest state")

        // The stuck client is dropped once it has read nothing for the timeout (waited for without reading,
        // which would unstick it); what it then finds is a bounded backlog and the end of the stream.
        let hangUpDeadline = Date().addingTimeInterval(stuckTimeout + 10)
        while Date() < hangUpDeadline {
            probe = pollfd(fd: stuck.fd, events: 0, revents: 0)
            if poll(&probe, 1, 100) > 0 && probe.revents & Int16(POLLHUP | POLLERR) != 0 { break }
        }
        let stuckLines = stuck.readToEnd(timeout: Tolerance.reply)
        #expect(stuckLines != nil, "the stuck client was disconnected")
        #expect((stuckLines?.count ?? 0) < lastSeq, "its backlog was bounded")
        #expect(run.child.stop() == 0)
        // Read after the service has exited: it logs a drop just after closing the connection.
        #expect(run.child.stderr.contains("read nothing for"), "the service logged why it dropped the client")
    }

    @Test("random bytes, oversized lines and floods close only the offending connection; the service keeps serving")
    func fuzzedClientInput() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 8, hold: 0.5)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let watcher = try TestSocket(path: run.socket)
        #expect(JSONLine.type(watcher.readLine() ?? "") == "hello")

        // A fresh seed each run, printed so that a failing run can be repeated with ROTATIOND_FUZZ_SEED.
        let firstSeed = ProcessInfo.processInfo.environment["ROTATIOND_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("fuzzed client input: seed \(firstSeed) (repeat with ROTATIOND_FUZZ_SEED=\(firstSeed))")
        var seed = firstSeed
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        let fragments: [String] = ["{", "}", "[", "]", "\"cmd\"", ":", ",", "\"state\"", "\"subscribe\"", "\"events\"",
                                   "\\u00", "\\ud800", "null", "1e999", "-", "0", "\u{7F}", "\n", " ", "\"\\", "tru"]
        for round in 0..<40 {
            let c = try TestSocket(path: run.socket)
            var bytes: [UInt8] = []
            let size = Int(next() % 6000)
            while bytes.count < size {
                if next() % 2 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: next()))
                } else {
                    bytes += Array(fragments[Int(next() % UInt64(fragments.count))].utf8)
                }
            }
            if round % 4 == 0 { bytes += Array(String(repeating: "[", count: 3000).utf8) + [0x0A] }
            c.send(bytes)
            // Then a line break ending whatever line was left open, and a hello command: its answer (the
            // bytes cannot make one) marks the end of what the service had to say about the fuzz, unless
            // it closed the connection first.
            c.send("\n{\"cmd\":\"hello\"}\n")
            // Whatever the bytes, the service answers only with whole protocol lines, and keeps running.
            var lines: [String] = []
            var ended = false
            while let line = c.readLine(timeout: Tolerance.slowReply) {
                lines.append(line)
                if lines.count > 1 && JSONLine.type(line) == "hello" { ended = true; break }
            }
            #expect(ended || c.eof, "round \(round), seed \(firstSeed): neither answered nor closed")
            #expect(JSONLine.type(lines.first ?? "") == "hello", "round \(round), seed \(firstSeed): greeted first")
            for line in lines {
                let type = JSONLine.type(line)
                #expect(type == "hello" || type == "state" || type == "error" || type == "subscribed" || type == "sample",
                        "round \(round), seed \(firstSeed): not a protocol line: \(line.prefix(200))")
                #expect(line.utf8.count <= 4096, "round \(round), seed \(firstSeed): a line over 4096 bytes")
            }
            #expect(run.child.isRunning, "round \(round), seed \(firstSeed): the service is still running")
        }
        // Explicit cases: a line over 4 KiB is refused with a reason and the connection closes.
        let long = try TestSocket(path: run.socket)
        long.send(Array(repeating: UInt8(ascii: "a"), count: 5000))
        let longLines = long.readToEnd(timeout: Tolerance.slowReply)
        #expect(longLines?.contains { JSONLine.object($0)?["code"] as? String == "line-too-long" } == true)
        // A flood of commands closes the connection.
        let flood = try TestSocket(path: run.socket)
        flood.send(String(repeating: "{\"cmd\":\"hello\"}\n", count: 2000))
        #expect(flood.readToEnd(timeout: Tolerance.slowReply)?.contains { JSONLine.object($0)?["code"] as? String == "flood" } == true)

        #expect(run.child.isRunning, "the service survived")
        let after = try TestSocket(path: run.socket)
        #expect(JSONLine.type(after.readLine() ?? "") == "hello")
        #expect(JSONLine.type(after.readLine() ?? "") == "state")
        after.send("{\"cmd\":\"state\"}\n")
        #expect(JSONLine.type(after.readLine() ?? "") == "state")
        var watcherStates = 0
        while let line = watcher.readLine(timeout: Tolerance.quiet) { if JSONLine.type(line) == "state" { watcherStates += 1 } }
        #expect(watcherStates >= 2, "a well-behaved client kept receiving changes throughout")
        #expect(run.child.stop() == 0)
    }

    @Test("SIGTERM stops the service cleanly: exit 0, its socket file removed, every log line with a level")
    func sigtermShutdown() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 2, hold: 0.4)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let c = try TestSocket(path: run.socket)
        #expect(c.readLine() != nil)
        #expect(run.child.stop(SIGTERM) == 0)
        #expect(!FileManager.default.fileExists(atPath: run.socket))
        #expect(c.readToEnd(timeout: Tolerance.closeSeen) != nil, "clients see the connection close")
        let lines = run.child.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.range(of: #"^rotationd: (debug|info|warning|error): "#, options: .regularExpression) != nil, "\(line)")
        }
    }

    @Test("journal priority prefixes appear only when standard error is the stream JOURNAL_STREAM names")
    func journalPrefixes() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        // The shell creates the log file, then names it (or another file) in JOURNAL_STREAM as systemd would.
        func log(naming target: String, tag: String) throws -> String {
            let file = dir.path("\(tag).log")
            let script = ": > \"$2\"; JOURNAL_STREAM=$(stat -c %d:%i \"$3\") exec \"$0\" --replay \"$1\" --socket \"$4\" 2>>\"$2\""
            let child = try ChildProcess("/bin/sh", ["-c", script, PackagePaths.binary("rotationd"), trace, file,
                                                     target == "self" ? file : trace, dir.path("\(tag).sock")], in: dir, tag: tag)
            _ = child.waitUntil(timeout: Tolerance.slowReply) { FileManager.default.fileExists(atPath: dir.path("\(tag).sock")) }
            #expect(child.stop() == 0)
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        let journal = try log(naming: "self", tag: "journal")
        #expect(journal.hasPrefix("<6>rotationd: info: "), "\(journal)")
        let other = try log(naming: "other", tag: "other")
        #expect(other.hasPrefix("rotationd: info: ") && !other.contains("<6>"), "an inherited JOURNAL_STREAM for another file: \(other)")
    }

    @Test("SIGINT also shuts down cleanly")
    func sigintShutdown() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        #expect(run.child.stop(SIGINT) == 0)
        #expect(!FileManager.default.fileExists(atPath: run.socket))
    }

    @Test("a stale socket file is replaced; a live one makes a second instance refuse with a clear message")
    func staleAndLiveSockets() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let path = dir.path("s.sock")
        // A socket file nobody listens on, as a crash leaves behind.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(rc == 0)
        close(fd)
        #expect(FileManager.default.fileExists(atPath: path))

        let first = try ServiceRun(trace: trace, socket: path, in: dir, tag: "first")
        #expect(first.waitUntilServing(), "the stale file was replaced: \(first.child.stderr)")
        #expect(first.child.stderr.contains("stale"))
        let second = try ServiceRun(trace: trace, socket: path, in: dir, tag: "second")
        #expect(second.child.wait(timeout: Tolerance.slowReply) == 1)
        #expect(second.child.stderr.contains("another rotationd is already serving on \(path)"))
        #expect(first.child.isRunning && FileManager.default.fileExists(atPath: path), "the refused instance left the live socket alone")
        #expect(first.child.stop() == 0)
    }

    @Test("the socket mode defaults to 0666 and --socket-mode changes it")
    func socketMode() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        for (extra, mode) in [([String](), 0o666), (["--socket-mode", "0660"], 0o660)] {
            let run = try ServiceRun(trace: trace, socket: dir.path("m.sock"), extra: extra, in: dir)
            #expect(run.waitUntilServing())
            var st = stat()
            #expect(lstat(run.socket, &st) == 0)
            #expect(Int(st.st_mode & 0o777) == mode)
            #expect(run.child.stop() == 0)
        }
    }

    @Test("the service raises its soft open-file limit so that every allowed client fits, within the hard limit")
    func openFileLimit() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        func softLimit(hard: Int, tag: String) throws -> (soft: Int?, stderr: String) {
            let socket = dir.path("\(tag).sock")
            let child = try ChildProcess("/usr/bin/prlimit", ["--nofile=256:\(hard)", PackagePaths.binary("rotationd"),
                                                             "--replay", trace, "--socket", socket], in: dir, tag: tag)
            // The limit is raised after the socket is bound and before clients are served: a greeting shows
            // that it has been.
            #expect(ServiceRun.waitUntilAccepting(socket, of: child), "\(child.stderr)")
            let c = try TestSocket(path: socket)
            #expect(JSONLine.type(c.readLine(timeout: Tolerance.slowReply) ?? "") == "hello")
            let limits = (try? String(contentsOfFile: "/proc/\(child.process.processIdentifier)/limits", encoding: .utf8)) ?? ""
            let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
            let soft = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
            #expect(child.stop() == 0)
            return (soft, child.stderr)
        }
        let roomy = try softLimit(hard: 8192, tag: "roomy")
        #expect(roomy.soft == 4096 + 64, "4096 clients and a reserve of 64: \(String(describing: roomy.soft))")
        #expect(!roomy.stderr.contains("open-file limit"))
        let tight = try softLimit(hard: 1000, tag: "tight")
        #expect(tight.soft == 1000, "raised as far as the hard limit allows")
        #expect(tight.stderr.contains("the open-file limit is 1000"), "\(tight.stderr)")
    }

    @Test("a replay whose output cannot be written (/dev/full) exits non-zero and says the output is incomplete")
    func replayToFullDevice() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 4, hold: 0.4)
        let child = try ChildProcess("/bin/sh", ["-c", "exec \"$0\" --replay \"$1\" > /dev/full", PackagePaths.binary("rotationd"), trace],
                                     in: dir, tag: "full")
        let status = child.wait(timeout: Tolerance.longRun)
        #expect(status == 1, "\(child.stderr)")
        #expect(child.stderr.contains("No space left on device") && child.stderr.contains("incomplete"), "\(child.stderr)")
        let whole = try ChildProcess(PackagePaths.binary("rotationd"), ["--replay", trace], in: dir, tag: "whole")
        #expect(whole.wait(timeout: Tolerance.longRun) == 0 && whole.stdout.split(separator: "\n").count >= 4)
    }

    @Test("ROTATIOND_SOCKET chooses the path when --serve is given without --socket")
    func environmentSocketPath() throws {
        let dir = try ScratchDirectory()
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 1, hold: 0.4)
        let path = dir.path("env.sock")
        let child = try ChildProcess(PackagePaths.binary("rotationd"), ["--replay", trace, "--serve"],
                                     environment: ["ROTATIOND_SOCKET": path], in: dir, tag: "env")
        #expect(ServiceRun.waitUntilAccepting(path, of: child), "\(child.stderr)")
        let c = try TestSocket(path: path)
        #expect(JSONLine.type(c.readLine() ?? "") == "hello")
        #expect(child.stop() == 0)
    }
}
