import RotationProtocol

/// What keeps every line the server sends within the protocol's limit: the widest camera list, the check
/// that it fits, and the bound on the sensor description.
extension SocketServer {
    /// The longest camera list a state can carry: `Camera.maxCount` cameras whose every string has the most
    /// bytes JSON can make of it (the longest name, device, model, bus path and capture nodes, and a libcamera
    /// id of backslashes, which JSON doubles).
    public static var widestCameras: [Camera] {
        let model = String(repeating: "m", count: Camera.maxModelJSONBytes - 2)
        let device = "/" + String(repeating: "d", count: Camera.maxDeviceBytes - 1)
        let libcamera = String(repeating: "\\", count: (Camera.maxLibcameraJSONBytes - 2) / 2)
        let busPath = String(repeating: "b", count: Camera.maxBusPathBytes)
        let node = "/" + String(repeating: "n", count: Camera.maxNodeBytes - 1)
        return (0..<Camera.maxCount).map { _ in
            Camera(name: String(repeating: "c", count: Camera.maxNameBytes), facing: .external, mount: 270,
                   device: device, model: model, source: .init(facing: .usbPort, mount: .default),
                   libcamera: libcamera, busPath: busPath, nodes: Array(repeating: node, count: Camera.maxNodes))
        }
    }

    /// Checks that no line the service can send for `cameras` exceeds the protocol's limit: a `hello` with
    /// the longest sensor description and every event type, and a `state` with the longest value of every
    /// member.
    public static func checkLineLengths(cameras: [Camera]) throws(ServiceError) {
        let hello = Hello(version: ServiceVersion.current, sensor: String(repeating: "\u{1}", count: maxSensorDescriptionBytes / 6),
                          cameras: cameras, events: EventType.allCases, samplesAllowed: true)
        let helloBytes = hello.jsonLine.utf8.count
        guard helloBytes <= ClientCommand.maxLineBytes else {
            throw .lineTooLong(message: "hello", bytes: helloBytes, cameras: cameras.count)
        }
        let longest = DeviceState(rotation: .rightUp, tilt: .tiltedDown, flat: false, inputs: .accelGyro)
        let state = StateEvent(seq: Int.max, time: -1e12, state: longest, cameras: cameras, sensor: .lost, missed: Int.max)
        let stateBytes = state.jsonLine.utf8.count
        guard stateBytes <= ClientCommand.maxLineBytes else {
            throw .lineTooLong(message: "state", bytes: stateBytes, cameras: cameras.count)
        }
    }

    private static func quotedBytes(_ s: String) -> Int {
        var out = ""
        JSONWriter.appendString(s, to: &out)
        return out.utf8.count
    }

    /// `description` cut to `maxSensorDescriptionBytes` (after JSON escaping at worst), keeping its end,
    /// which for a path names the file.
    static func bounded(_ description: String) -> String {
        let budget = maxSensorDescriptionBytes / 6
        guard description.utf8.count > budget && quotedBytes(description) > maxSensorDescriptionBytes else { return description }
        var tail = ""
        for ch in description.unicodeScalars.reversed() {
            let next = String(ch) + tail
            if quotedBytes("…" + next) > maxSensorDescriptionBytes { break }
            tail = next
        }
        return "…" + tail
    }
}
