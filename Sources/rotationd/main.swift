import Glibc
import RotationEngine
import RotationSensors

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    OutputStreamFD.standardError.write("rotationd: \(error)\n")
    exit(2)
}
exit(Daemon(options: options).run())
