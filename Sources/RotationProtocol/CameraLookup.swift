/// Finds a camera by whatever a program knows it by.
///
/// A key matches, in this order: a camera's `name`; its `libcamera` id (libcamera's `Camera::id()`, PipeWire's
/// `api.libcamera.path`); its `device` or one of its capture `nodes` (PipeWire's `api.v4l2.path`), also once
/// symlinks such as `/dev/v4l/by-id/...` are resolved; its `bus_path` (PipeWire's `device.bus-path`, udev's
/// `ID_PATH`). The first rule that some camera satisfies decides.
public enum CameraLookup {
    /// The camera in `cameras` that `key` names, or nil. `resolve` turns a path into the one its symlinks lead
    /// to (`realpath`), or nil; the caller that can read the file system gives it.
    public static func camera(_ key: String, in cameras: [Camera], resolve: (String) -> String? = { _ in nil }) -> Camera? {
        if let c = cameras.first(where: { $0.name == key }) { return c }
        if let c = cameras.first(where: { $0.libcamera == key }) { return c }
        func node(_ path: String) -> Camera? { cameras.first { $0.device == path || $0.nodes.contains(path) } }
        if let c = node(key) { return c }
        if key.hasPrefix("/"), let real = resolve(key), let c = node(real) { return c }
        return cameras.first { $0.busPath == key }
    }
}
