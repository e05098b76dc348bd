import Glibc
import RotationProtocol

/// Reads what a client sent off its socket and cuts it into command lines of at most
/// `ClientCommand.maxLineBytes` bytes, keeping an unfinished line in the connection's `input`.
struct CommandReader {
    /// How a read ended.
    enum Outcome {
        /// Nothing more to read for now (or enough was read in one pass); the client stays.
        case read
        /// The peer will send nothing more, though it may still be reading.
        case endOfInput
        /// The socket failed; the client is to be dropped.
        case failed
        /// A line was longer than the protocol allows; the client is to be dropped.
        case tooLong
        /// `handle` returned false: it dropped the client.
        case stopped
    }

    /// Where client input is read into, reused for every read.
    private var chunk = [UInt8](repeating: 0, count: 16384)

    /// Reads up to four chunks from `c`'s socket and passes each complete line, without its newline, to
    /// `handle`, which returns false when it dropped the client.
    mutating func read(_ c: ClientConnection, handle: ([UInt8]) -> Bool) -> Outcome {
        for _ in 0..<4 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(c.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { break }
                return .failed
            }
            if n == 0 {
                // The peer will send nothing more but may still be reading: keep serving it.
                c.inputClosed = true
                c.input = []
                return .endOfInput
            }
            var start = 0
            while start < n {
                let newline = chunk[start..<n].firstIndex(of: 0x0A)
                let end = newline ?? n
                if c.input.count + (end - start) > ClientCommand.maxLineBytes { return .tooLong }
                c.input.append(contentsOf: chunk[start..<end])
                guard newline != nil else { break }
                start = end + 1
                let line = c.input
                c.input.removeAll(keepingCapacity: true)
                guard handle(line) else { return .stopped }
            }
        }
        return .read
    }
}
