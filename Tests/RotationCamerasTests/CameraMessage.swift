import Foundation

/// The cameras of the service's messages, for compact comparisons.
enum CameraMessage {
    /// The camera objects of a hello or state message.
    static func cameras(_ message: [String: Any]?) -> [[String: Any]] { message?["cameras"] as? [[String: Any]] ?? [] }

    /// One camera as "name facing mount device source.facing source.mount".
    static func summary(_ c: [String: Any]) -> String {
        let source = c["source"] as? [String: Any]
        return ["\(c["name"] ?? "-")", "\(c["facing"] ?? "-")", "\(c["mount"] ?? "-")", "\(c["device"] ?? "-")",
                "\(source?["facing"] ?? "-")", "\(source?["mount"] ?? "-")"].joined(separator: " ")
    }
}
