// The smallest program that follows rotationd with RotationClient, as a camera app would: it prints the
// rotation in degrees at each change, reconnecting when the service goes away. scripts/memory-report.sh
// measures its resident memory.
//
//   follow-rotation [SOCKET]      (default: RotationClient's, see RotationClient.init(path:))
import RotationClient
import RotationProtocol
import RotationSystem

let client = RotationClient(path: CommandLine.arguments.dropFirst().first)
for await event in client.events() {
    if case .message(.state(let event), _) = event, let rotation = event.state.rotation {
        OutputStreamFD.standardOutput.write(String(rotation.degrees) + "\n")
    }
}
