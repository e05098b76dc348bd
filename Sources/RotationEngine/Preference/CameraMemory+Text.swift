import RotationProtocol

/// The memory as text: one JSON object a line, so that a damaged line loses only its own record.
///
/// ```
/// {"format":"rotationd-camera-memory","version":1,"counter":17}
/// {"camera":"libcamera:\\_SB_.PCI0.XHC_-1:1.0-046d:0825","order":12,"attached":true,"infrared":false}
/// {"uid":1000,"camera":"bus:pci-0000:00:14.0-usb-0:5:1.0","order":15}
/// ```
extension CameraMemory {
    /// The name in the first line.
    public static let formatName = "rotationd-camera-memory"
    /// The most bytes a memory file may have: the most cameras and users, each with its longest identity, fit.
    public static let maxTextBytes = 256 * 1024

    /// The memory as text, the counter first, then the cameras and the users in a stable order.
    public var text: String {
        var lines: [String] = []
        var head = JSONWriter()
        head.add("format", Self.formatName)
        head.add("version", 1)
        head.add("counter", Int(clamping: counter))
        lines.append(head.object)
        for (id, record) in cameras.sorted(by: { $0.key < $1.key }) {
            var w = JSONWriter()
            w.add("camera", id)
            w.add("order", Int(clamping: record.order))
            w.add("attached", record.attached)
            w.add("infrared", record.infrared)
            lines.append(w.object)
        }
        for (uid, choice) in choices.sorted(by: { $0.key < $1.key }) {
            var w = JSONWriter()
            w.add("uid", Int(uid))
            w.add("camera", choice.camera)
            w.add("order", Int(clamping: choice.order))
            lines.append(w.object)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads `bytes` as written by `text`. Each line stands alone: one that is not a record is skipped and said in
    /// `problems` ("line N: why"), and the others are kept. A memory with no record read stands for nothing
    /// remembered, as on a first start.
    public static func read(_ bytes: [UInt8]) -> (memory: CameraMemory, problems: [String]) {
        var problems: [String] = []
        var counter: UInt64 = 0
        var cameras: [String: Record] = [:]
        var choices: [UInt32: CameraChoice] = [:]
        var sawHeader = false
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let json: JSONValue
            do { json = try JSONParser.parse(Array(line)) } catch {
                problems.append("line \(index + 1): not JSON")
                continue
            }
            if json["format"] != nil {
                guard json["format"]?.stringValue == formatName, json["version"]?.intValue == 1,
                      let n = json["counter"]?.intValue, n >= 0 else {
                    problems.append("line \(index + 1): not a version 1 header of \(formatName)")
                    continue
                }
                counter = UInt64(n)
                sawHeader = true
            } else if let uid = json["uid"]?.intValue {
                guard let choice = choiceRecord(json), let id = UInt32(exactly: uid) else {
                    problems.append("line \(index + 1): a user's choice without a camera and an order")
                    continue
                }
                choices[id] = choice
            } else if let id = json["camera"]?.stringValue, !id.isEmpty, let order = json["order"]?.intValue, order >= 0,
                      let attached = json["attached"]?.boolValue {
                cameras[id] = Record(order: UInt64(order), attached: attached, infrared: json["infrared"]?.boolValue ?? false)
            } else {
                problems.append("line \(index + 1): neither a camera nor a user's choice")
            }
        }
        var memory = CameraMemory(remembered: sawHeader || !cameras.isEmpty || !choices.isEmpty)
        memory.restore(counter: counter, cameras: cameras, choices: choices)
        return (memory, problems)
    }

    private static func choiceRecord(_ json: JSONValue) -> CameraChoice? {
        guard let camera = json["camera"]?.stringValue, !camera.isEmpty,
              let order = json["order"]?.intValue, order > 0 else { return nil }
        return CameraChoice(camera: camera, order: UInt64(order))
    }
}
