// The smallest program that follows rotationd with RotationClient, as a camera app would: it prints the
// rotation in degrees at each change, reconnecting when the service goes away. scripts/memory-report.sh
// measures its resident memory.
//
//   follow-rotation [SOCKET]      (default: RotationClient's, see RotationClient.init(path:))
import Glibc
import RotationClient
import RotationProtocol

func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}

let client = RotationClient(path: CommandLine.arguments.dropFirst().first)
for await event in client.events() {
    if case .message(.state(let event), _) = event, let rotation = event.state.rotation {
        say(String(rotation.degrees))
    }
}
