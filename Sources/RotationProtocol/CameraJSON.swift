extension Camera {
    /// Decodes one camera object: `name`, `facing` and `mount` are required; `device`, `model`, `libcamera`,
    /// `bus_path` (each a string or null), `nodes` (an array of strings), `source`, `panel` (`lid`, the
    /// default, or `base`) and `infrared` (false when absent) may be absent, as they are from an older service.
    /// Other members, such as `capture`, `exif` and `direction`, are ignored.
    public init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue,
              let f = json["facing"]?.stringValue, let facing = CameraFacing(rawValue: f),
              let mount = json["mount"]?.intValue else { return nil }
        func optionalString(_ key: String) -> String?? {
            guard let v = json[key], !v.isNull else { return .some(nil) }
            return v.stringValue.map { .some($0) }
        }
        guard let device = optionalString("device"), let model = optionalString("model"),
              let libcamera = optionalString("libcamera"), let busPath = optionalString("bus_path") else { return nil }
        var nodes: [String] = []
        if let n = json["nodes"], !n.isNull {
            guard let items = n.arrayValue else { return nil }
            for item in items {
                guard let node = item.stringValue else { return nil }
                nodes.append(node)
            }
        }
        var source: Sources?
        if let s = json["source"], !s.isNull {
            guard let f = s["facing"]?.stringValue, let m = s["mount"]?.stringValue else { return nil }
            source = Sources(facing: CameraValueSource(rawValue: f), mount: CameraValueSource(rawValue: m))
        }
        var panel = CameraPanel.lid
        if let p = json["panel"], !p.isNull {
            guard let name = p.stringValue, let value = CameraPanel(rawValue: name) else { return nil }
            panel = value
        }
        var infrared = false
        if let i = json["infrared"], !i.isNull {
            guard let value = i.boolValue else { return nil }
            infrared = value
        }
        self.init(name: name, facing: facing, mount: mount, device: device, model: model, source: source,
                  libcamera: libcamera, busPath: busPath, nodes: nodes, panel: panel, infrared: infrared)
    }

    /// Encodes cameras as a JSON array of objects with `name`, `facing`, `mount`, `device`, `model`, `source`
    /// (left out when unknown), `libcamera`, `bus_path`, `nodes`, `panel` and `infrared`; `extra` may add members
    /// to each object after those.
    public static func jsonArray(_ cameras: [Camera], extra: (Camera, inout JSONWriter) -> Void = { _, _ in }) -> String {
        var out = "["
        for (i, cam) in cameras.enumerated() {
            if i > 0 { out += "," }
            var w = JSONWriter()
            w.add("name", cam.name)
            w.add("facing", cam.facing.rawValue)
            w.add("mount", cam.mount)
            w.add("device", cam.device)
            w.add("model", cam.model)
            if let source = cam.source {
                var s = JSONWriter()
                s.add("facing", source.facing.rawValue)
                s.add("mount", source.mount.rawValue)
                w.addRaw("source", s.object)
            }
            w.add("libcamera", cam.libcamera)
            w.add("bus_path", cam.busPath)
            var nodes = "["
            for (j, node) in cam.nodes.enumerated() {
                if j > 0 { nodes += "," }
                JSONWriter.appendString(node, to: &nodes)
            }
            w.addRaw("nodes", nodes + "]")
            w.add("panel", cam.panel.rawValue)
            w.add("infrared", cam.infrared)
            extra(cam, &w)
            out += w.object
        }
        return out + "]"
    }
}
