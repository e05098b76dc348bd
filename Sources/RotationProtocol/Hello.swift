/// The `hello` message, the first line on every connection: who is talking and what it offers.
public struct Hello: Sendable, Hashable {
    /// The protocol version this code speaks.
    public static let currentProtocol = 1

    /// The protocol version the service speaks; a client should refuse versions it does not know.
    public var protocolVersion: Int
    /// The service's name.
    public var service: String
    /// The service's version.
    public var version: String
    /// A description of the sensor in use, or nil when there is none.
    public var sensor: String?
    /// The configured cameras.
    public var cameras: [Camera]
    /// The event types this connection is subscribed to at first.
    public var events: [EventType]
    /// Whether this connection may subscribe to raw samples.
    public var samplesAllowed: Bool

    /// Creates a hello message.
    public init(protocolVersion: Int = Hello.currentProtocol, service: String = "rotationd", version: String,
                sensor: String?, cameras: [Camera], events: [EventType] = EventType.defaults, samplesAllowed: Bool) {
        self.protocolVersion = protocolVersion
        self.service = service
        self.version = version
        self.sensor = sensor
        self.cameras = cameras
        self.events = events
        self.samplesAllowed = samplesAllowed
    }

    /// Decodes a `hello` object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard json["type"]?.stringValue == "hello",
              let p = json["protocol"]?.intValue,
              let service = json["service"]?.stringValue,
              let version = json["version"]?.stringValue,
              let sensorValue = json["sensor"], sensorValue.isNull || sensorValue.stringValue != nil,
              let cams = json["cameras"]?.arrayValue,
              let events = json["events"]?.arrayValue,
              let samples = json["samples"]?.boolValue else { return nil }
        var cameras: [Camera] = []
        for c in cams {
            guard let cam = Camera(json: c) else { return nil }
            cameras.append(cam)
        }
        var types: [EventType] = []
        for e in events {
            guard let name = e.stringValue, let t = EventType(rawValue: name) else { return nil }
            types.append(t)
        }
        self.init(protocolVersion: p, service: service, version: version, sensor: sensorValue.stringValue,
                  cameras: cameras, events: types, samplesAllowed: samples)
    }

    /// The message as one JSON line, without the trailing newline.
    public var jsonLine: String {
        var w = JSONWriter()
        w.add("type", "hello")
        w.add("protocol", protocolVersion)
        w.add("service", service)
        w.add("version", version)
        w.add("sensor", sensor)
        w.addRaw("cameras", Camera.jsonArray(cameras))
        w.addRaw("events", EventType.jsonArray(events))
        w.add("samples", samplesAllowed)
        return w.object
    }
}
