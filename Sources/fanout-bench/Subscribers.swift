import Glibc
import RotationSystem

/// N subscriber connections read from one thread: the receive time of each state seq per subscriber.
final class Subscribers {
    let fds: [Int32]
    /// Per subscriber: bytes of an unfinished line.
    var partial: [[UInt8]]
    /// Per subscriber: monotonic time at which each state seq had been read whole.
    var received: [[Int: Double]]
    var lastSeq: [Int]
    var greeted: [Bool]
    /// Each state seq's `t`, as the first subscriber to read it saw it.
    var eventTime: [Int: Double] = [:]
    var gaps = 0
    private var chunk = [UInt8](repeating: 0, count: 16384)
    private let seqKey = Array("\"seq\":".utf8)
    private let timeKey = Array("\"t\":".utf8)
    private let statePrefix = Array("{\"type\":\"state\"".utf8)
    private let helloPrefix = Array("{\"type\":\"hello\"".utf8)

    init(fds: [Int32]) {
        self.fds = fds
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        partial = .init(repeating: [], count: fds.count)
        received = .init(repeating: [:], count: fds.count)
        lastSeq = .init(repeating: -1, count: fds.count)
        greeted = .init(repeating: false, count: fds.count)
    }

    /// Whether every subscriber has read a hello (when `needHello`) and a state.
    func allGreeted(needHello: Bool) -> Bool {
        !lastSeq.contains(-1) && (!needHello || !greeted.contains(false))
    }

    /// The highest state seq any subscriber has read, or -1.
    var maxSeq: Int { lastSeq.max() ?? -1 }

    private func find(_ key: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
        var i = line.startIndex
        while i + key.count <= line.endIndex {
            if line[i..<(i + key.count)].elementsEqual(key) { return i + key.count }
            i += 1
        }
        return nil
    }

    private func seqOf(_ line: ArraySlice<UInt8>) -> Int? {
        guard line.starts(with: statePrefix), var j = find(seqKey, in: line) else { return nil }
        var v = 0
        while j < line.endIndex, line[j] >= 48, line[j] <= 57 { v = v * 10 + Int(line[j] - 48); j += 1 }
        return v
    }

    private func timeOf(_ line: ArraySlice<UInt8>) -> Double? {
        guard let start = find(timeKey, in: line) else { return nil }
        var end = start
        while end < line.endIndex, line[end] != 0x2C, line[end] != 0x7D { end += 1 }
        return Double(String(decoding: line[start..<end], as: UTF8.self))
    }

    /// Waits up to `timeout` ms for data, then reads whatever every ready subscriber has.
    func readAll(timeout: Int32) {
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&pfds, nfds_t(pfds.count), timeout) > 0 else { return }
        for i in 0..<pfds.count where pfds[i].revents != 0 {
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pfds[i].fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                let now = MonotonicClock.now()
                partial[i].append(contentsOf: chunk[..<n])
                while let nl = partial[i].firstIndex(of: 0x0A) {
                    let line = partial[i][..<nl]
                    if let seq = seqOf(line) {
                        if seq > 0 && lastSeq[i] >= 0 && seq != lastSeq[i] + 1 && seq != lastSeq[i] { gaps += 1 }
                        lastSeq[i] = seq
                        if received[i][seq] == nil { received[i][seq] = now }
                        if eventTime[seq] == nil, let t = timeOf(line) { eventTime[seq] = t }
                    } else if line.starts(with: helloPrefix) {
                        greeted[i] = true
                    }
                    partial[i].removeSubrange(...nl)
                }
            }
        }
    }
}
