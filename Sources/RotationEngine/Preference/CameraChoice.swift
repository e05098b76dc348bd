import RotationProtocol

/// A user's preferred camera: which physical camera, and when it was chosen among the arrivals and choices the
/// service remembers.
public struct CameraChoice: Sendable, Hashable {
    /// The camera's identity (`Camera.identity`): the same when it is plugged in again on the same port.
    public var camera: String
    /// Its place among the remembered arrivals and choices: a later event has a larger number.
    public var order: UInt64

    /// Creates a choice.
    public init(camera: String, order: UInt64) {
        self.camera = camera
        self.order = order
    }
}

extension Camera {
    /// The name under which the service remembers this physical camera: the same when it is plugged in again on
    /// the same port, different for two units of one model. Its libcamera id (which holds the firmware node of
    /// a sensor, or a UVC camera's controller, port, interface and model), else its bus path (udev `ID_PATH`,
    /// port and interface), else its node, else, for a configured camera without one, its name. Never the name
    /// of a found camera or a node alone where better exists: other cameras reuse those.
    public var identity: String {
        if let libcamera { return "libcamera:" + libcamera }
        if let busPath { return "bus:" + busPath }
        if let device { return "node:" + device }
        return "name:" + name
    }
}
