import CMalloc

/// A rotationd run: wires the chosen input to the engine and the engine to the outputs, and runs until done.
///
/// The mode follows from the options: a replay or `serve` serves or prints (`Serve`), `list` lists what was
/// found, `fixMount` guides a fix of the mount matrix (`MountFix`), `print` or `record` follow the live sensor
/// with one permanent subscriber, and with none of these the live sensor is served on the socket, as the service
/// unit runs it.
public struct Daemon: Sendable {
    /// What to run.
    public let options: DaemonOptions

    /// A run of `options`; nothing starts until `run()`.
    public init(options: DaemonOptions) {
        self.options = options
    }

    /// Runs until the input ends or a stop signal arrives; returns the process's exit status (0 success, 1 when
    /// the service cannot start or its output failed, 2 for a malformed trace or setting).
    public func run() -> Int32 {
        // Before any thread starts (`ResidentTrim`, Docs/memory.md).
        _ = rotationd_malloc_one_arena()
        if options.report != nil {
            return Report(options: options).run()
        }
        if options.replay != nil || options.serve {
            return Serve(options: options).run()
        }
        if options.fixMount {
            return MountFix(assumeYes: options.assumeYes).run()
        }
        if options.list {
            return Listing.run(options)
        }
        if options.print || options.record != nil {
            return PermanentSubscriber.run(options)
        }
        // With nothing else asked for, serve the live sensor: what the service unit runs.
        var serving = options
        serving.serve = true
        return Serve(options: serving).run()
    }
}
