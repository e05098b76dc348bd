import RotationEngine
import RotationSensors

/// Wires the chosen input to the engine and the engine to the outputs.
struct Daemon {
    let options: Options

    func run() -> Int32 {
        if options.help {
            OutputStreamFD.standardOutput.write(Options.usage + "\n")
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
        OutputStreamFD.standardError.write("rotationd: live input is not wired yet; use --replay FILE.csv\n")
        return 2
    }
}
