/// Whether the service currently has a working sensor.
public enum SensorStatus: String, Sendable, Hashable {
    /// Samples are arriving.
    case ok
    /// The sensor went away or failed; the last rotation is held until it returns.
    case lost
    /// No sensor has been found yet.
    case none
    /// Not sampling, because no client was subscribed; sampling starts as a client connects, and a state
    /// with the sensor's real status follows.
    case idle
}

/// The `state` message: the full published state after a change, or on request.
public struct StateEvent: Sendable, Hashable {
    /// Increases by one for every event within one run of the service.
    public var seq: Int
    /// Monotonic seconds (trace seconds in a replay) of the sample that caused the change.
    public var time: Double
    /// The engine's state.
    public var state: DeviceState
    /// The configured cameras; their capture angles follow from `state.rotation`.
    public var cameras: [Camera]
    /// The sensor's status.
    public var sensor: SensorStatus
    /// How many events this subscriber did not receive before this one, because it read too slowly.
    public var missed: Int
    /// Each camera's direction as a decoded line gave it, by camera name (nil: `null` there, or a direction
    /// this version does not know), where it differs from what the fold the line carries gives; a camera whose
    /// object had no `direction` member (an older service), or one that agrees, is absent, and its direction
    /// follows from the fold (`direction(of:)`).
    public var directions: [String: CameraDirection?] = [:]
    /// The name of the camera recommended to the user this state goes to (the system's preferred camera,
    /// `Docs/cameras.md`, "Which camera to open"), or nil when there is none.
    public var preferred: String?
    /// The camera plugged in most recently that is not infrared, while it stays attached: what the service
    /// recommends to every user who has not chosen a camera since it came. Kept beside the state by the service
    /// and not sent: a client learns its effect from `preferred`.
    public var arrival: CameraArrival?

    /// Creates a state event.
    public init(seq: Int, time: Double, state: DeviceState, cameras: [Camera], sensor: SensorStatus = .ok, missed: Int = 0,
                preferred: String? = nil, arrival: CameraArrival? = nil) {
        self.seq = seq
        self.time = time
        self.state = state
        self.cameras = cameras
        self.sensor = sensor
        self.missed = missed
        self.preferred = preferred
        self.arrival = arrival
    }

    /// Decodes a `state` object; nil when `json` is not one or its members contradict each other.
    ///
    /// A `t` of `null` (no sample yet) decodes as NaN. Each camera's `capture` and `exif` are recomputed
    /// from the rotation, so they are not read back. A `preferred` that names no camera of the state, or is
    /// absent (an older service), decodes as nil.
    public init?(json: JSONValue) {
        guard json["type"]?.stringValue == "state",
              let seq = json["seq"]?.intValue,
              let t = json["t"], t.isNull || t.numberValue != nil,
              let rotationValue = json["rotation"],
              let tiltValue = json["tilt"],
              let flat = json["flat"]?.boolValue,
              let inputsName = json["inputs"]?.stringValue, let inputs = EngineInputs(rawValue: inputsName),
              let sensorName = json["sensor"]?.stringValue, let sensor = SensorStatus(rawValue: sensorName),
              let cams = json["cameras"]?.arrayValue else { return nil }
        var rotation: Rotation?
        if !rotationValue.isNull {
            guard let d = rotationValue.intValue, let r = Rotation(degrees: d), r.degrees == d else { return nil }
            guard json["orientation"]?.stringValue == r.name else { return nil }
            rotation = r
        }
        var tilt: Tilt?
        if !tiltValue.isNull {
            guard let name = tiltValue.stringValue, let value = Tilt(rawValue: name) else { return nil }
            tilt = value
        }
        var cameras: [Camera] = []
        var directions: [String: CameraDirection?] = [:]
        for c in cams {
            guard let cam = Camera(json: c) else { return nil }
            cameras.append(cam)
            if let d = c["direction"] { directions[cam.name] = d.stringValue.flatMap(CameraDirection.init(rawValue:)) }
        }
        var fold = PostureState.unknown
        if let p = json["posture"], !p.isNull {
            guard let name = p.stringValue, let posture = Posture(rawValue: name) else { return nil }
            fold.posture = posture
        }
        if let h = json["hinge"], !h.isNull {
            guard let degrees = h.intValue, (0...360).contains(degrees) else { return nil }
            fold.hinge = degrees
            fold.heldHinge = degrees
        }
        if let r = json["base_rotation"], !r.isNull {
            guard let d = r.intValue, let value = Rotation(degrees: d), value.degrees == d else { return nil }
            fold.baseRotation = value
        }
        let preferred = json["preferred"]?.stringValue.flatMap { name in cameras.contains { $0.name == name } ? name : nil }
        self.init(seq: seq, time: t.numberValue ?? .nan,
                  state: DeviceState(rotation: rotation, tilt: tilt, flat: flat, inputs: inputs, fold: fold),
                  cameras: cameras, sensor: sensor, missed: json["missed"]?.intValue ?? 0, preferred: preferred)
        // Only where the line says otherwise than the fold it carries: an event survives encoding and decoding.
        self.directions = directions.filter { name, published in
            cameras.first { $0.name == name }.map { self.state.fold.direction(of: $0) != published } ?? false
        }
    }

    /// Which way `cam` looks relative to the person at the display: as the service published it, where the
    /// decoded line said (the service may know more of the fold than the line carries, such as a hinge angle it
    /// holds while it cannot read one), else from the fold.
    public func direction(of cam: Camera) -> CameraDirection? {
        if let published = directions[cam.name] { return published }
        return state.fold.direction(of: cam)
    }

    /// The camera `preferred` names, or nil.
    public var preferredCamera: Camera? { preferred.flatMap { name in cameras.first { $0.name == name } } }

    /// The message as one JSON line, without the trailing newline.
    public var jsonLine: String {
        var w = JSONWriter()
        w.add("type", "state")
        w.add("seq", seq)
        w.add("t", time, decimals: 4)
        w.add("rotation", state.rotation?.degrees)
        w.add("orientation", state.rotation?.name)
        w.add("tilt", state.tilt?.name)
        w.add("flat", state.flat)
        w.add("inputs", state.inputs.rawValue)
        w.add("sensor", sensor.rawValue)
        w.add("posture", state.fold.posture?.rawValue)
        w.add("hinge", state.fold.hinge)
        if let base = state.fold.baseRotation { w.add("base_rotation", base.degrees) }
        w.addRaw("cameras", StateEvent.camerasJSON(cameras, state: state))
        w.add("preferred", preferred)
        if missed > 0 { w.add("missed", missed) }
        return w.object
    }

    /// The cameras as a JSON array, each with its capture angle and the EXIF Orientation for it (both `null`
    /// while the rotation that turns it is unknown) and its direction relative to the person at the display
    /// (`null` where the fold does not tell it).
    public static func camerasJSON(_ cameras: [Camera], state: DeviceState) -> String {
        Camera.jsonArray(cameras) { cam, w in
            let rotation = state.fold.rotation(of: cam, display: state.rotation)
            w.add("capture", rotation.map { cam.captureAngle(for: $0) })
            w.add("exif", rotation.map { cam.exifOrientation(for: $0) })
            w.add("direction", state.fold.direction(of: cam)?.rawValue)
        }
    }
}
