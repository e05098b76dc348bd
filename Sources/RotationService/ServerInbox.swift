import Glibc
import RotationProtocol
import RotationSystem
import Synchronization

/// The hand-over from the inputs' threads to the socket server's: what is published, queued in order, and a
/// pipe whose read end the server's poll loop watches, written to when the queue stops being empty.
final class ServerInbox: Sendable {
    /// One thing published.
    enum Item: Sendable {
        /// A state change.
        case state(StateEvent)
        /// A raw sample.
        case sample(Sample)
        /// The stored change of this number is on disk (`PreferenceStore`): replies waiting for it may go.
        case durable(UInt64)
    }

    /// The most items queued; a sample beyond it is dropped, a state never is.
    static let limit = 8192

    /// The pipe's read end, readable while items wait.
    let wakeFD: Int32
    /// The pipe's write end, -1 once closed; publishers write under this lock, so a closed number that the
    /// system hands out again is never written to.
    private let wakeWrite: Mutex<Int32>
    private let items = Mutex<[Item]>([])

    /// An empty inbox with its pipe, both ends non-blocking.
    init() throws(ServiceError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .system(operation: "create", path: "wake-up pipe", errno: .current) }
        for fd in fds { Descriptor.makeNonBlocking(fd) }
        wakeFD = fds[0]
        wakeWrite = Mutex(fds[1])
    }

    /// Queues `item`, waking the reader when the queue was empty; returns at once.
    func post(_ item: Item) {
        let wasEmpty = items.withLock { items -> Bool in
            let empty = items.isEmpty
            if items.count >= ServerInbox.limit, case .sample = item { return false }
            items.append(item)
            return empty
        }
        if wasEmpty { wake() }
    }

    /// Makes the read end readable, so the poll loop runs a pass.
    func wake() {
        wakeWrite.withLock { fd in
            guard fd >= 0 else { return }
            var one: UInt8 = 1
            _ = Glibc.write(fd, &one, 1)
        }
    }

    /// Empties the pipe and returns everything queued, oldest first.
    func take() -> [Item] {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while Glibc.read(wakeFD, &scratch, 32) == 32 {}
        return items.withLock { items -> [Item] in
            let taken = items
            items.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// Closes both ends of the pipe; `wake` does nothing afterwards.
    func close() {
        Glibc.close(wakeFD)
        wakeWrite.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }
}
