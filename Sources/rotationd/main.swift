import Glibc
import RotationEngine
import RotationSensors
import RotationService

// The sensor code's messages go through the service's log, so they carry the journal's priorities too.
SensorLog.route { level, message in
    switch level {
    case .error: Log.error(message)
    case .warning: Log.warning(message)
    case .info: Log.info(message)
    case .debug: Log.debug(message)
    }
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    OutputStreamFD.standardError.write("rotationd: \(error)\n")
    exit(2)
}
exit(Daemon(options: options).run())
