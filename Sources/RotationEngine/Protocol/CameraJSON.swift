extension Camera {
    /// Decodes one camera object (`name`, `facing`, `mount`); other members, such as `capture`, are ignored.
    public init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue,
              let f = json["facing"]?.stringValue, let facing = CameraFacing(rawValue: f),
              let mount = json["mount"]?.intValue else { return nil }
        self.init(name: name, facing: facing, mount: mount)
    }

    /// Encodes cameras as a JSON array of objects with `name`, `facing` and `mount`; `extra` may add members
    /// to each object after those.
    public static func jsonArray(_ cameras: [Camera], extra: (Camera, inout JSONWriter) -> Void = { _, _ in }) -> String {
        var out = "["
        for (i, cam) in cameras.enumerated() {
            if i > 0 { out += "," }
            var w = JSONWriter()
            w.add("name", cam.name)
            w.add("facing", cam.facing.rawValue)
            w.add("mount", cam.mount)
            extra(cam, &w)
            out += w.object
        }
        return out + "]"
    }
}
