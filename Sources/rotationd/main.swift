import Glibc
import RotationDaemon
import RotationProtocol
import RotationSystem

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    OutputStreamFD.standardError.write("rotationd: \(error)\n")
    exit(2)
}
if options.help {
    OutputStreamFD.standardOutput.write(Options.usage + "\n")
    exit(0)
}
if options.verbose { Log.minimumLevel = .debug }
if options.version {
    OutputStreamFD.standardOutput.write("\(ServiceVersion.name) \(ServiceVersion.current)\n")
    exit(0)
}
exit(Daemon(options: options.daemon).run())
