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
        if let path = options.replay {
            return replay(path)
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

    private func replay(_ path: String) -> Int32 {
        let trace: TraceReplay
        do { trace = try TraceReplay(path: path) } catch {
            OutputStreamFD.standardError.write("rotationd: \(error)\n")
            return 2
        }
        var engine = OrientationEngine(configuration: options.configuration)
        var seq = 0
        let out = OutputStreamFD.standardOutput
        trace.run(engine: &engine, ignoreGyro: options.noGyro, realtime: options.realtime) { sample, state in
            seq += 1
            let event = StateEvent(seq: seq, time: sample.time, state: state, cameras: options.cameras)
            out.write(event.jsonLine + "\n")
        }
        return 0
    }
}
