import Glibc
import Synchronization

/// A POSIX thread running one closure: joined by its owner (`join`), or left to end on its own (`detach`, or
/// started with `detached`), and named when given a name.
///
/// The name is what `top -H`, `ps -T` and `/proc/PID/task/*/comm` show, and what the benchmarks and tests look for
/// (such as "rotationd-iio"); the kernel keeps 15 bytes of it.
public final class SystemThread: @unchecked Sendable {
    private let name: String?
    /// The `pthread_t`, published by both the thread that creates it and the thread itself, whichever comes first.
    private let handle = Atomic<UInt>(0)
    /// Whether `join` or `detach` has been called.
    private let settled = Atomic<Bool>(false)

    /// Starts `body` on a new joinable thread named `name`; throws the error number when none can be created
    /// (the system is out of threads or memory).
    public init(named name: String? = nil, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        self.name = name
        try create(body, detached: false)
    }

    private init(named name: String?, detachedBody body: @escaping @Sendable () -> Void) throws(Errno) {
        self.name = name
        try create(body, detached: true)
    }

    /// Starts `body` on a new thread that nobody joins, named `name`; throws the error number when none can be
    /// created.
    public static func detached(named name: String? = nil, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        _ = try SystemThread(named: name, detachedBody: body)
    }

    /// Starts `body` on a new joinable thread named `name`, for a thread the program cannot do without: stops the
    /// process, saying why, when none can be created.
    public static func start(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> SystemThread {
        do { return try SystemThread(named: name, body) } catch {
            fatalError("cannot start a thread\(name.map { " (\($0))" } ?? ""): \(error)")
        }
    }

    /// What the new thread runs; released as it ends, with everything the closure holds.
    private final class Start {
        let thread: SystemThread
        let body: @Sendable () -> Void
        init(_ thread: SystemThread, _ body: @escaping @Sendable () -> Void) {
            self.thread = thread
            self.body = body
        }
    }

    private func create(_ body: @escaping @Sendable () -> Void, detached: Bool) throws(Errno) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached {
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            settled.store(true, ordering: .relaxed)
        }
        var thread = pthread_t()
        let arg = Unmanaged.passRetained(Start(self, body)).toOpaque()
        let rc = pthread_create(&thread, &attributes, { arg in
            let start = Unmanaged<Start>.fromOpaque(arg!).takeRetainedValue()
            start.thread.handle.store(UInt(pthread_self()), ordering: .releasing)
            if let name = start.thread.name { SystemThread.nameCurrent(name) }
            start.body()
            return nil
        }, arg)
        guard rc == 0 else {
            Unmanaged<Start>.fromOpaque(arg).release()
            throw Errno(rawValue: rc)
        }
        handle.store(UInt(thread), ordering: .releasing)
    }

    /// Whether the calling thread is this one; true from the first line of its closure on.
    public var isCurrent: Bool {
        let h = handle.load(ordering: .acquiring)
        return h != 0 && pthread_equal(pthread_t(h), pthread_self()) != 0
    }

    /// Waits for the closure to return. At most once, from another thread, and not after `detach`.
    public func join() {
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(pthread_t(handle.load(ordering: .acquiring)), nil)
    }

    /// Lets the thread end on its own, without a `join`: from the thread itself too.
    public func detach() {
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_detach(pthread_t(handle.load(ordering: .acquiring)))
    }

    /// Names the calling thread (through `/proc/thread-self/comm`).
    public static func nameCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        OutputStreamFD(fd: fd).write(name)
        close(fd)
    }
}
