import RotationProtocol
import RotationSensors
import RotationService

/// Wires the chosen input to the engine and the engine to the outputs.
struct Daemon {
    let options: Options

    func run() -> Int32 {
        if options.help {
            OutputStreamFD.standardOutput.write(Options.usage + "\n")
            return 0
        }
        if options.verbose { Log.minimumLevel = .debug }
        if options.version {
            OutputStreamFD.standardOutput.write("\(ServiceVersion.name) \(ServiceVersion.current)\n")
            return 0
        }
        if options.replay != nil || options.serve {
            return Serve(options: options).run()
        }
        if options.list {
            return LiveInput.list(options)
        }
        if options.print || options.record != nil {
            return LiveInput.runWithPermanentSubscriber(options)
        }
        // With nothing else asked for, serve the live sensor: what the service unit runs.
        var serving = options
        serving.serve = true
        return Serve(options: serving).run()
    }
}
